import { z } from 'zod';
import { SLIDE_TYPES, type Slide } from '../../entities/Slide.ts';
import { objectKey } from '../object-key.schema.ts';
import { text } from '../shared.schema.ts';
import { productDataSchema } from './product-data.schema.ts';

export const slideIdParam = z.object({ slideId: z.uuid() });

/** The human-readable id of a slide within its deck. */
export const humanSlideId = z
  .string()
  .regex(/^slide-[1-9]\d{0,8}$/, 'must have the form slide-<n> (n a positive integer)');

/** The editable fields of a slide (creation and PATCH). */
export const slideFields = {
  title: text().max(500).nullable(),
  narrationScript: text().max(20_000).nullable(),
  bullets: z.array(text().max(1000)).max(50),
  slideContext: text().max(20_000).nullable(),
  audioUrl: objectKey.nullable(),
  heroImg: objectKey.nullable(),
  slideType: z.enum(SLIDE_TYPES),
};

/** The same fields, each optional: what a create may leave out and a PATCH may change. */
export const optionalSlideFields = {
  title: slideFields.title.optional(),
  narrationScript: slideFields.narrationScript.optional(),
  bullets: slideFields.bullets.optional(),
  slideContext: slideFields.slideContext.optional(),
  audioUrl: slideFields.audioUrl.optional(),
  heroImg: slideFields.heroImg.optional(),
};

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
    productData: (slide.productData as SlideOutput['productData']) ?? null,
    createdAt: slide.createdAt.toISOString(),
    updatedAt: slide.updatedAt.toISOString(),
  };
}
