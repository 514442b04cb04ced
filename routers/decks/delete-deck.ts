import * as decks from '../../domain/decks/decks.ts';
import { successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { deckIdInput } from './deck.schema.ts';

export const deleteDeck = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'DELETE',
      path: '/decks/{deckId}',
      tags: ['decks'],
      summary: 'Delete a deck with its slides, FAQs, action configs, intro and jobs',
      description:
        'Removes the deck and everything in it: slides, FAQs, action configs, intro, generation jobs, and their audio. Write access; event `deck.deleted`.',
    },
  })
  .input(deckIdInput)
  .output(successOutput)
  .mutation(({ ctx, input }) => decks.deleteDeck(ctx, input.deckId));
