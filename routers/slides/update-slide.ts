import { z } from 'zod';
import { badRequest } from '../../domain/errors.ts';
import { checkOwnObjectKeys } from '../../domain/object-keys.ts';
import { authedProcedure } from '../trpc.ts';
import { findSlide } from './find-slide.ts';
import { optionalSlideFields, slideFields, slideOutput, toSlideOutput } from './slide.schema.ts';
import { recordSlideEvent } from './slide-events.ts';

/**
 * Any slide field but `orderIndex` (use reorder) and the human `slideId` (fixed at
 * creation: the path's `slideId` is the slide's uuid). Switching a pricing slide to
 * `standard` drops its product data.
 */
export const updateSlideInput = z.strictObject({
  slideId: z.uuid(),
  ...optionalSlideFields,
  slideType: slideFields.slideType.optional(),
});

export const updateSlide = authedProcedure
  .meta({
    openapi: { method: 'PATCH', path: '/slides/{slideId}', tags: ['slides'], summary: 'Edit a slide' },
  })
  .input(updateSlideInput)
  .output(slideOutput)
  .mutation(async ({ ctx, input }) => {
    const { slideId, ...changes } = input;
    if (Object.keys(changes).length === 0) {
      throw badRequest('Send at least one field to change');
    }
    await checkOwnObjectKeys(ctx.auth, ctx.services.storage, {
      audioUrl: changes.audioUrl,
      heroImg: changes.heroImg,
    });
    // Locked: a concurrent delete makes this a 404 instead of an event for a deleted slide.
    return ctx.em.transactional(async (em) => {
      const slide = await findSlide(em, ctx.auth, slideId, { lock: true });
      const before = JSON.stringify(toSlideOutput(slide));

      if (changes.title !== undefined) slide.title = changes.title;
      if (changes.narrationScript !== undefined) slide.narrationScript = changes.narrationScript;
      if (changes.bullets !== undefined) slide.bullets = changes.bullets;
      if (changes.slideContext !== undefined) slide.slideContext = changes.slideContext;
      if (changes.audioUrl !== undefined) slide.audioUrl = changes.audioUrl;
      if (changes.heroImg !== undefined) slide.heroImg = changes.heroImg;
      if (changes.slideType !== undefined) {
        slide.slideType = changes.slideType;
        if (changes.slideType === 'standard') slide.productData = null;
      }
      if (JSON.stringify(toSlideOutput(slide)) === before) return toSlideOutput(slide);

      slide.updatedAt = new Date();
      const output = toSlideOutput(slide);
      recordSlideEvent(em, ctx.auth, 'slide.updated', output);
      await em.flush();
      return output;
    });
  });
