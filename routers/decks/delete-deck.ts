import { successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { deckIdInput, toDeckOutput } from './deck.schema.ts';
import { recordDeckEvent } from './deck-events.ts';
import { findDeck } from './find-deck.ts';

export const deleteDeck = authedProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/decks/{deckId}',
      tags: ['decks'],
      summary: 'Delete a deck with its slides, FAQs, action configs, intro and jobs',
    },
  })
  .input(deckIdInput)
  .output(successOutput)
  .mutation(async ({ ctx, input }) =>
    // Locked: of two concurrent deletes one answers 404, and one event is written.
    ctx.em.transactional(async (em) => {
      const deck = await findDeck(em, ctx.auth, input.deckId, { lock: true });
      // Everything that belongs to the deck goes with it through ON DELETE CASCADE.
      recordDeckEvent(em, ctx.auth, 'deck.deleted', deck.id, toDeckOutput(deck));
      em.remove(deck);
      await em.flush();
      return { success: true as const };
    }),
  );
