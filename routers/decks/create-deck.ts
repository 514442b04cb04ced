import { z } from 'zod';
import { deckOutput } from '../../domain/decks/deck-output.ts';
import * as decks from '../../domain/decks/decks.ts';
import { authedProcedure } from '../trpc.ts';
import { deckName, voiceId } from './deck.schema.ts';

export const createDeckInput = z.strictObject({
  name: deckName,
  voiceId: voiceId.nullable().optional(),
});

export const createDeck = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'POST',
      path: '/decks',
      tags: ['decks'],
      summary: 'Create a deck',
      description:
        "Creates an empty deck in the caller's organization; `voiceId`, when given, must be a voice of `GET /voices/list` and narrates the deck. Write access; event `deck.created`.",
    },
    successStatus: 201,
    location: '/decks/{id}',
  })
  .input(createDeckInput)
  .output(deckOutput)
  .mutation(({ ctx, input }) => decks.createDeck(ctx, input));
