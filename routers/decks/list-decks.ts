import { z } from 'zod';
import { deckOutput } from '../../domain/decks/deck-output.ts';
import * as decks from '../../domain/decks/decks.ts';
import { noInput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const listDecks = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/decks',
      tags: ['decks'],
      summary: "List the organization's decks",
      description: "Every deck of the caller's organization.",
    },
  })
  .input(noInput)
  .output(z.object({ decks: z.array(deckOutput) }))
  .query(({ ctx }) => decks.listDecks(ctx));
