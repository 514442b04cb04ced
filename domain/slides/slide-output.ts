import { z } from 'zod';
import { SLIDE_TYPES, type Slide } from '../../entities/Slide.ts';
import { type ProductData, productDataSchema } from './product-data.ts';

/** A slide as every route answers it (and as its events carry it). */
export const slideOutput = z
  .object({
    id: z.uuid(),
    deckId: z.uuid(),
    slideId: z.string(),
    title: z.string().nullable(),
    narrationScript: z.string().nullable(),
    bullets: z.array(z.string()),
    slideContext: z.string().nullable(),
    audioUrl: z.string().nullable().meta({ description: 'Object-storage key of the slide’s audio' }),
    heroImg: z.string().nullable().meta({ description: 'Object-storage key of the slide image' }),
    orderIndex: z.int().min(0),
    slideType: z.enum(SLIDE_TYPES),
    productData: productDataSchema
      .nullable()
      .meta({ description: 'Pricing tiers; product_pricing_v1 slides only' }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Slide' });

export type SlideOutput = z.infer<typeof slideOutput>;

export const productDataOutput = z.object({ productData: productDataSchema });

export const slideAudioOutput = z.object({ url: z.url(), expiresIn: z.int() }).meta({ id: 'AudioAddress' });

export function toSlideOutput(slide: Slide): SlideOutput {
  return {
    id: slide.id,
    deckId: slide.deck.id,
    slideId: slide.slideId,
    title: slide.title ?? null,
    narrationScript: slide.narrationScript ?? null,
    bullets: slide.bullets,
    slideContext: slide.slideContext ?? null,
    audioUrl: slide.audioUrl ?? null,
    heroImg: slide.heroImg ?? null,
    orderIndex: slide.orderIndex,
    slideType: slide.slideType,
    productData: (slide.productData as ProductData | null) ?? null,
    createdAt: slide.createdAt.toISOString(),
    updatedAt: slide.updatedAt.toISOString(),
  };
}
