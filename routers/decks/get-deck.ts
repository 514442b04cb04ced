import { authedProcedure } from '../trpc.ts';
import { deckIdInput, deckOutput, toDeckOutput } from './deck.schema.ts';
import { findDeck } from './find-deck.ts';

export const getDeck = authedProcedure
  .meta({ openapi: { method: 'GET', path: '/decks/{deckId}', tags: ['decks'], summary: 'Get a deck' } })
  .input(deckIdInput)
  .output(deckOutput)
  .query(async ({ ctx, input }) => toDeckOutput(await findDeck(ctx.em, ctx.auth, input.deckId)));
