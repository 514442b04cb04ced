import { z } from 'zod';
import { productDataInputSchema } from '../../domain/slides/product-data.ts';
import { productDataOutput } from '../../domain/slides/slide-output.ts';
import * as slides from '../../domain/slides/slides.ts';
import { authedProcedure } from '../trpc.ts';

export const putProductData = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'PUT',
      path: '/slides/{slideId}/product-data',
      tags: ['slides'],
      summary: 'Set (replace) the tiers of a pricing slide',
      description:
        'Replaces the three tiers of a `product_pricing_v1` slide (a standard slide is a 404). Prices have at most two decimals; currencies are ISO 4217 codes. Write access; event `slide.product_data_updated`.',
    },
  })
  .input(z.strictObject({ slideId: z.uuid(), productData: productDataInputSchema }))
  .output(productDataOutput)
  .mutation(({ ctx, input }) => slides.putProductData(ctx, input));
