import { z } from 'zod';
import * as slides from '../../domain/slides/slides.ts';
import { longList, successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const reorderSlidesInput = z.strictObject({
  deckId: z.uuid(),
  slideIds: longList(z.uuid(), 10_000).meta({
    description: 'Every slide of the deck (uuids), each once, in the new order',
  }),
});

export const reorderSlides = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'PUT',
      path: '/decks/{deckId}/slides/reorder',
      tags: ['slides'],
      summary: 'Put the deck’s slides in a new order',
      description:
        "Sets the order of the deck's slides in one step: `slideIds` must list every slide of the deck exactly once (400 otherwise); their `orderIndex` becomes their place in the list. Write access; event `deck.slides_reordered`.",
    },
  })
  .input(reorderSlidesInput)
  .output(successOutput)
  .mutation(({ ctx, input }) => slides.reorderSlides(ctx, input));
