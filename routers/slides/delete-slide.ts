import { findDeck } from '../../domain/decks/find-deck.ts';
import { notFound } from '../../domain/errors.ts';
import { Slide } from '../../entities/Slide.ts';
import { successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { findSlide } from './find-slide.ts';
import { slideIdParam, toSlideOutput } from './slide.schema.ts';
import { recordSlideEvent } from './slide-events.ts';

export const deleteSlide = authedProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/slides/{slideId}',
      tags: ['slides'],
      summary: 'Delete a slide; the slides after it move up',
    },
  })
  .input(slideIdParam)
  .output(successOutput)
  .mutation(async ({ ctx, input }) =>
    ctx.em.transactional(async (em) => {
      const { deck } = await findSlide(em, ctx.auth, input.slideId);
      await findDeck(em, ctx.auth, deck.id, { lock: true });
      // Re-read under the lock: a concurrent reorder may have moved it, or a concurrent delete removed it.
      const slide = await em.findOne(Slide, input.slideId, { refresh: true });
      if (!slide) throw notFound('Slide', input.slideId);
      recordSlideEvent(em, ctx.auth, 'slide.deleted', toSlideOutput(slide));
      em.remove(slide);
      await em.flush();
      await em.execute(
        'update slide set order_index = order_index - 1 where deck_id = ? and order_index > ?',
        [deck.id, slide.orderIndex],
      );
      return { success: true as const };
    }),
  );
