import { z } from 'zod';
import { findDeck } from '../../domain/decks/find-deck.ts';
import { Slide } from '../../entities/Slide.ts';
import { deckIdInput } from '../decks/deck.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { slideOutput, toSlideOutput } from './slide.schema.ts';

export const listSlides = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/decks/{deckId}/slides',
      tags: ['slides'],
      summary: 'The deck’s slides, in order',
    },
  })
  .input(deckIdInput)
  .output(z.object({ slides: z.array(slideOutput) }))
  .query(async ({ ctx, input }) => {
    const deck = await findDeck(ctx.em, ctx.auth, input.deckId);
    const slides = await ctx.em.find(Slide, { deck }, { orderBy: { orderIndex: 'asc' } });
    return { slides: slides.map(toSlideOutput) };
  });
