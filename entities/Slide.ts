import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity } from './base.ts';
import { Deck } from './Deck.ts';

export const SLIDE_TYPES = ['standard', 'product_pricing_v1'] as const;
export type SlideType = (typeof SLIDE_TYPES)[number];

/**
 * A slide of a deck. `orderIndex` is always 0…n-1 within the deck; the unique constraint on
 * (deck, orderIndex) is DEFERRABLE (see the migration) so that a reorder can move every
 * slide in one UPDATE and be checked at commit.
 */
const SlideSchema = defineEntity({
  name: 'Slide',
  tableName: 'slide',
  extends: BaseEntity,
  uniques: [
    { properties: ['deck', 'slideId'] },
    { properties: ['deck', 'orderIndex'], deferMode: 'deferred' },
  ],
  checks: [{ name: 'slide_order_index_check', expression: 'order_index >= 0' }],
  properties: {
    deck: () => p.manyToOne(Deck).deleteRule('cascade'),
    slideId: p.string().length(50),
    title: p.text().nullable(),
    narrationScript: p.text().nullable(),
    bullets: p.json<string[]>(),
    slideContext: p.text().nullable(),
    audioUrl: p.string().length(1024).nullable(),
    heroImg: p.string().length(1024).nullable(),
    orderIndex: p.integer(),
    slideType: p.enum(SLIDE_TYPES).default('standard'),
    productData: p.json<Record<string, unknown>>().nullable(),
  },
});

export class Slide extends SlideSchema.class {}
SlideSchema.setClass(Slide);
