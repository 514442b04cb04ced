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
    },
  })
  .input(slideIdParam)
  .output(productDataOutput)
  .query(({ ctx, input }) => slides.getProductData(ctx, input.slideId));
