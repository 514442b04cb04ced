import { z } from 'zod';
import { authedProcedure } from '../trpc.ts';
import { checkVoice } from '../voices/check-voice.ts';
import { deckName, deckOutput, toDeckOutput, voiceId } from './deck.schema.ts';
import { recordDeckEvent } from './deck-events.ts';
import { findDeck } from './find-deck.ts';

export const updateDeckInput = z.strictObject({
  deckId: z.uuid(),
  name: deckName.optional(),
  /** null clears the deck's voice (narration then uses the default voice). */
  voiceId: voiceId.nullable().optional(),
});

export const updateDeck = authedProcedure
  .meta({
    openapi: {
      method: 'PATCH',
      path: '/decks/{deckId}',
      tags: ['decks'],
      summary: 'Rename a deck or set its voice',
    },
  })
  .input(updateDeckInput)
  .output(deckOutput)
  .mutation(async ({ ctx, input }) => {
    await checkVoice(ctx.services, input.voiceId);
    // Locked: a concurrent delete makes this a 404 instead of an event for a deleted deck.
    return ctx.em.transactional(async (em) => {
      const deck = await findDeck(em, ctx.auth, input.deckId, { lock: true });
      const changed =
        (input.name !== undefined && input.name !== deck.name) ||
        (input.voiceId !== undefined && input.voiceId !== deck.voiceId);
      // An update that changes nothing is answered with the deck as it is, and writes no event.
      if (!changed) return toDeckOutput(deck);

      if (input.name !== undefined) deck.name = input.name;
      if (input.voiceId !== undefined) deck.voiceId = input.voiceId;
      deck.updatedAt = new Date();
      const output = toDeckOutput(deck);
      recordDeckEvent(em, ctx.auth, 'deck.updated', deck.id, output);
      await em.flush();
      return output;
    });
  });
