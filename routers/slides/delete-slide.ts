import * as slides from '../../domain/slides/slides.ts';
import { successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { slideIdParam } from './slide.schema.ts';

export const deleteSlide = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'DELETE',
      path: '/slides/{slideId}',
      tags: ['slides'],
      summary: 'Delete a slide; the slides after it move up',
      description:
        'Removes the slide and its audio; the slides after it move up, so `orderIndex` stays 0…n-1. Write access; event `slide.deleted`.',
    },
  })
  .input(slideIdParam)
  .output(successOutput)
  .mutation(({ ctx, input }) => slides.deleteSlide(ctx, input.slideId));
