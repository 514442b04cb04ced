import { z } from 'zod';
import { findDeck } from '../../domain/decks/find-deck.ts';
import { recordEvent } from '../../domain/events/record-event.ts';
import { checkOwnObjectKeys } from '../../domain/object-keys.ts';
import { DeckBranding } from '../../entities/DeckBranding.ts';
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
    const data = normaliseBranding(fields);
    return ctx.em.transactional(async (em) => {
      // The deck's row lock makes concurrent first saves queue up: find-then-create is safe under it.
      const deck = await findDeck(em, ctx.auth, deckId, { lock: true });
      const now = new Date();
      let branding = await em.findOne(DeckBranding, { deck });
      if (branding) {
        branding.data = data;
        branding.updatedAt = now;
      } else {
        branding = em.create(DeckBranding, { deck, data, createdAt: now, updatedAt: now });
      }
      const output = toBrandingOutput(branding);
      recordEvent(em, ctx.auth, 'deck.branding_updated', {
        aggregateId: deck.id,
        deckId: deck.id,
        payload: { branding: output },
      });
      await em.flush();
      return { branding: output };
    });
  });
