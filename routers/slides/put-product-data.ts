import { z } from 'zod';
import { authedProcedure } from '../trpc.ts';
import { findSlide } from './find-slide.ts';
import { productDataOutput, requirePricingSlide } from './get-product-data.ts';
import { productDataSchema } from './product-data.schema.ts';
import { toSlideOutput } from './slide.schema.ts';
import { recordSlideEvent } from './slide-events.ts';

export const putProductData = authedProcedure
  .meta({
    openapi: {
      method: 'PUT',
      path: '/slides/{slideId}/product-data',
      tags: ['slides'],
      summary: 'Set (replace) the tiers of a pricing slide',
    },
  })
  .input(z.strictObject({ slideId: z.uuid(), productData: productDataSchema }))
  .output(productDataOutput)
  .mutation(async ({ ctx, input }) =>
    // Locked: a concurrent delete makes this a 404 instead of an event for a deleted slide.
    ctx.em.transactional(async (em) => {
      const slide = requirePricingSlide(await findSlide(em, ctx.auth, input.slideId, { lock: true }));
      slide.productData = input.productData;
      slide.updatedAt = new Date();
      recordSlideEvent(em, ctx.auth, 'slide.product_data_updated', toSlideOutput(slide));
      await em.flush();
      return { productData: input.productData };
    }),
  );
