import { z } from 'zod';
import { deckOutput } from '../../domain/decks/deck-output.ts';
import * as decks from '../../domain/decks/decks.ts';
import { authedProcedure } from '../trpc.ts';
import { deckName, voiceId } from './deck.schema.ts';

export const updateDeckInput = z.strictObject({
  deckId: z.uuid(),
  name: deckName.optional(),
  /** null clears the deck's voice (narration then uses the default voice). */
  voiceId: voiceId.nullable().optional(),
});

export const updateDeck = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'PATCH',
      path: '/decks/{deckId}',
      tags: ['decks'],
      summary: 'Rename a deck or set its voice',
      description:
        "Changes the deck's `name`, its `voiceId` (a voice of `GET /voices/list`), or both; at least one. Write access; event `deck.updated`.",
    },
  })
  .input(updateDeckInput)
  .output(deckOutput)
  .mutation(({ ctx, input }) => decks.updateDeck(ctx, input));
