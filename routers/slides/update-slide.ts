import { z } from 'zod';
import { slideOutput } from '../../domain/slides/slide-output.ts';
import * as slides from '../../domain/slides/slides.ts';
import { authedProcedure } from '../trpc.ts';
import { optionalSlideFields, slideType } from './slide.schema.ts';

/**
 * Any slide field but `orderIndex` (use reorder) and the human `slideId` (fixed at
 * creation: the path's `slideId` is the slide's uuid). Switching a pricing slide to
 * `standard` drops its product data.
 */
export const updateSlideInput = z.strictObject({
  slideId: z.uuid(),
  ...optionalSlideFields,
  slideType: slideType.optional(),
});

export const updateSlide = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'PATCH',
      path: '/slides/{slideId}',
      tags: ['slides'],
      summary: 'Edit a slide',
      description:
        'Changes any field of the slide but `orderIndex` (use the reorder route); at least one. Write access; event `slide.updated`.',
    },
  })
  .input(updateSlideInput)
  .output(slideOutput)
  .mutation(({ ctx, input }) => slides.updateSlide(ctx, input));
