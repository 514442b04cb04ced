import { z } from 'zod';
import { DeckBranding } from '../../entities/DeckBranding.ts';
import { recordDeckEvent } from '../decks/deck-events.ts';
import { findDeck } from '../decks/find-deck.ts';
import { checkOwnObjectKeys } from '../object-keys.ts';
import { authedProcedure } from '../trpc.ts';
import { brandingInput, brandingResponse, normaliseBranding, toBrandingOutput } from './branding.schema.ts';

export const saveBranding = authedProcedure
  .meta({
    openapi: {
      method: 'PUT',
      path: '/decks/{deckId}/branding',
      tags: ['branding'],
      summary: 'Create or replace the deck’s branding',
    },
  })
  .input(z.strictObject({ deckId: z.uuid(), ...brandingInput.shape }))
  .output(brandingResponse)
  .mutation(async ({ ctx, input }) => {
    const { deckId, ...fields } = input;
    await checkOwnObjectKeys(ctx.auth, ctx.services.storage, { logo: fields.logo, avatar: fields.avatar });
    const deck = await findDeck(ctx.em, ctx.auth, deckId);
    const data = normaliseBranding(fields);
    const now = new Date();
    let branding = await ctx.em.findOne(DeckBranding, { deck });
    if (branding) {
      branding.data = data;
      branding.updatedAt = now;
    } else {
      branding = ctx.em.create(DeckBranding, { deck, data, createdAt: now, updatedAt: now });
    }
    const output = toBrandingOutput(branding);
    recordDeckEvent(ctx.em, ctx.auth, 'deck.branding_updated', deck.id, { branding: output });
    await ctx.em.flush();
    return { branding: output };
  });
