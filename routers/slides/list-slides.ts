import { z } from 'zod';
import { slideOutput } from '../../domain/slides/slide-output.ts';
import * as slides from '../../domain/slides/slides.ts';
import { compiledOutput } from '../compiled-output.ts';
import { deckIdInput } from '../decks/deck.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const listSlides = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/decks/{deckId}/slides',
      tags: ['slides'],
      summary: 'The deck’s slides, in order',
      description: 'Every slide of the deck, ordered by `orderIndex`.',
    },
  })
  .input(deckIdInput)
  .output(compiledOutput(z.object({ slides: z.array(slideOutput) })))
  .query(({ ctx, input }) => slides.listSlides(ctx, input.deckId));
