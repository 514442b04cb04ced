import { deckOutput } from '../../domain/decks/deck-output.ts';
import * as decks from '../../domain/decks/decks.ts';
import { authedProcedure } from '../trpc.ts';
import { deckIdInput } from './deck.schema.ts';

export const getDeck = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/decks/{deckId}',
      tags: ['decks'],
      summary: 'Get a deck',
      description:
        "One deck of the caller's organization; another organization's deck is a 404, as a missing one.",
    },
  })
  .input(deckIdInput)
  .output(deckOutput)
  .query(({ ctx, input }) => decks.getDeck(ctx, input.deckId));
