import { findDeck } from '../../domain/decks/find-deck.ts';
import { DeckBranding } from '../../entities/DeckBranding.ts';
import { deckIdInput } from '../decks/deck.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { brandingResponse, toBrandingOutput } from './branding.schema.ts';

export const getBranding = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/decks/{deckId}/branding',
      tags: ['branding'],
      summary: 'The deck’s branding (null until saved)',
    },
  })
  .input(deckIdInput)
  .output(brandingResponse)
  .query(async ({ ctx, input }) => {
    const deck = await findDeck(ctx.em, ctx.auth, input.deckId);
    const branding = await ctx.em.findOne(DeckBranding, { deck });
    return { branding: branding ? toBrandingOutput(branding) : null };
  });
