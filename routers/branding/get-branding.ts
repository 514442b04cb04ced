import * as branding from '../../domain/branding/branding.ts';
import { brandingResponse } from '../../domain/branding/branding-output.ts';
import { deckIdInput } from '../decks/deck.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const getBranding = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/decks/{deckId}/branding',
      tags: ['branding'],
      summary: 'The deck’s branding (null until saved)',
      description:
        "The deck's colours, fonts, logo, avatar, chat name and greeting, contact and call to action; `branding` is `null` until it is first saved.",
    },
  })
  .input(deckIdInput)
  .output(brandingResponse)
  .query(({ ctx, input }) => branding.getBranding(ctx, input.deckId));
