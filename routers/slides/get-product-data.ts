import { productDataOutput } from '../../domain/slides/slide-output.ts';
import * as slides from '../../domain/slides/slides.ts';
import { authedProcedure } from '../trpc.ts';
import { slideIdParam } from './slide.schema.ts';

export const getProductData = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/slides/{slideId}/product-data',
      tags: ['slides'],
      summary: 'The good/better/best tiers of a pricing slide',
      description:
        'The pricing of a `product_pricing_v1` slide: three tiers and the one selected by default. A standard slide, or a pricing slide without product data yet, is a 404.',
    },
  })
  .input(slideIdParam)
  .output(productDataOutput)
  .query(({ ctx, input }) => slides.getProductData(ctx, input.slideId));
