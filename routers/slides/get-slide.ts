import { slideOutput } from '../../domain/slides/slide-output.ts';
import * as slides from '../../domain/slides/slides.ts';
import { authedProcedure } from '../trpc.ts';
import { slideIdParam } from './slide.schema.ts';

export const getSlide = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/slides/{slideId}',
      tags: ['slides'],
      summary: 'Get a slide',
      description:
        "One slide of the caller's organization, by its uuid (where a created slide's `Location` points).",
    },
  })
  .input(slideIdParam)
  .output(slideOutput)
  .query(({ ctx, input }) => slides.getSlide(ctx, input.slideId));
