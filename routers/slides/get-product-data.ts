import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import type { Slide } from '../../entities/Slide.ts';
import { authedProcedure } from '../trpc.ts';
import { findSlide } from './find-slide.ts';
import { type ProductData, productDataSchema } from './product-data.schema.ts';
import { slideIdParam } from './slide.schema.ts';

export const productDataOutput = z.object({ productData: productDataSchema });

/** The slide, if it is a pricing slide; a standard slide has no product data to speak of. */
export function requirePricingSlide(slide: Slide): Slide {
  if (slide.slideType !== 'product_pricing_v1') {
    throw new TRPCError({
      code: 'NOT_FOUND',
      message: `Slide ${slide.id} is a standard slide; product data belongs to product_pricing_v1 slides`,
    });
  }
  return slide;
}

export const getProductData = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/slides/{slideId}/product-data',
      tags: ['slides'],
      summary: 'The good/better/best tiers of a pricing slide',
    },
  })
  .input(slideIdParam)
  .output(productDataOutput)
  .query(async ({ ctx, input }) => {
    const slide = requirePricingSlide(await findSlide(ctx.em, ctx.auth, input.slideId));
    if (!slide.productData) {
      throw new TRPCError({ code: 'NOT_FOUND', message: `Slide ${slide.id} has no product data yet` });
    }
    return { productData: slide.productData as ProductData };
  });
