import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { SLIDE_TYPES, Slide } from '../../entities/Slide.ts';
import { isoTimestamp } from '../iso-timestamp.ts';
import { productDataSchema } from './product-data.ts';

/**
 * A slide as every route answers it (and as its events carry it). Each field is the entity's
 * property of the same name (`deckId`: its `deck`): the answer is built from this list, from an
 * entity (`toSlideOutput`) and in SQL (`slideOutputColumns`), so a field is spelled here once.
 */
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

/** The answer's fields that are the entity's properties of the same name (a field the entity lacks fails the type check). */
type StoredField = Exclude<keyof SlideOutput, 'deckId'>;
const STORED_FIELDS = Object.keys(slideOutput.shape).filter((field) => field !== 'deckId') as StoredField[];

/** The answer of a slide entity (written and read back: its timestamps are the stored ones). */
export function toSlideOutput(slide: Slide): SlideOutput {
  const answer: Record<string, unknown> = { deckId: slide.deck.id };
  for (const field of STORED_FIELDS) {
    const value = slide[field];
    answer[field] = value instanceof Date ? value.toISOString() : (value ?? null);
  }
  return answer as SlideOutput;
}

let columns: string | undefined;

/**
 * The answer as a select list over the slide table aliased `s` (columns from the entity's
 * metadata, computed once): rows read with it are answers as they are, with no entity built
 * (the list, the insert's and the delete's RETURNING: hot paths, `npm run bench:http`).
 * Timestamps are read as the ISO text `toISOString` gives.
 */
export function slideOutputColumns(em: EntityManager): string {
  if (columns) return columns;
  const { properties } = em.getMetadata().get(Slide);
  columns = Object.keys(slideOutput.shape)
    .map((field) => {
      const property = field === 'deckId' ? properties.deck : properties[field as StoredField];
      const column = `s.${property.fieldNames[0]}`;
      return `${property.runtimeType === 'Date' ? isoTimestamp(column) : column} as "${field}"`;
    })
    .join(', ');
  return columns;
}
