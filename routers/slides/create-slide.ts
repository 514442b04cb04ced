import { z } from 'zod';
import { productDataInputSchema } from '../../domain/slides/product-data.ts';
import { slideOutput } from '../../domain/slides/slide-output.ts';
import * as slides from '../../domain/slides/slides.ts';
import { integer } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { humanSlideId, optionalSlideFields, slideType } from './slide.schema.ts';

export const createSlideInput = z.strictObject({
  deckId: z.uuid(),
  slideId: humanSlideId
    .optional()
    .meta({ description: 'slide-<n>, unique in the deck; assigned when omitted' }),
  ...optionalSlideFields,
  orderIndex: integer()
    .min(0)
    .optional()
    .meta({ description: 'Insert at this position (0…n); later slides move down. Omitted: last.' }),
  slideType: slideType.default('standard'),
  productData: productDataInputSchema.optional().meta({ description: 'Only for product_pricing_v1 slides' }),
});

export const createSlide = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'POST',
      path: '/decks/{deckId}/slides',
      tags: ['slides'],
      summary: 'Add a slide to a deck',
      description:
        'Adds a slide: without `orderIndex` it goes last, with one it is inserted there and later slides move down. `slideId` (`slide-<n>`) is assigned when left out and must be unique in the deck (409). `productData` only for `product_pricing_v1` slides. Write access; event `slide.created`.',
      errorResponses: [409],
    },
    successStatus: 201,
    location: '/slides/{id}',
  })
  .input(createSlideInput)
  .output(slideOutput)
  .mutation(({ ctx, input }) => slides.createSlide(ctx, input));
