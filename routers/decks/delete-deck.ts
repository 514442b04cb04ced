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
  .mutation(async ({ ctx, input }) => {
    const deck = await findDeck(ctx.em, ctx.auth, input.deckId);
    // Everything that belongs to the deck goes with it through ON DELETE CASCADE.
    recordDeckEvent(ctx.em, ctx.auth, 'deck.deleted', deck.id, toDeckOutput(deck));
    ctx.em.remove(deck);
    await ctx.em.flush();
    return { success: true as const };
  });
