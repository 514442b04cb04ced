import { z } from 'zod';
import * as branding from '../../domain/branding/branding.ts';
import { brandingResponse } from '../../domain/branding/branding-output.ts';
import { authedProcedure } from '../trpc.ts';
import { brandingInput } from './branding.schema.ts';

export const saveBranding = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'PUT',
      path: '/decks/{deckId}/branding',
      tags: ['branding'],
      summary: 'Create or replace the deck’s branding',
      description:
        "Replaces the deck's whole branding (fields left out are cleared). `logo` and `avatar` are object keys that must name images of the caller's organization. Write access; event `deck.branding_updated`.",
    },
  })
  .input(z.strictObject({ deckId: z.uuid(), ...brandingInput.shape }))
  .output(brandingResponse)
  .mutation(({ ctx, input }) => branding.saveBranding(ctx, input));
