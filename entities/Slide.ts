import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity } from './base.ts';
import { Deck } from './Deck.ts';

export const SLIDE_TYPES = ['standard', 'product_pricing_v1'] as const;
export type SlideType = (typeof SLIDE_TYPES)[number];

/**
 * A slide of a deck. `orderIndex` is always 0…n-1 within the deck. Its uniqueness is checked
 * by statement-level triggers, not a unique index (migration `slide_positions`): with no index
 * on `order_index`, and room left on each page (fillfactor 70), a reorder moves slides with
 * HOT updates that write no index entries, and it is checked once, after its one UPDATE.
 */
const SlideSchema = defineEntity({
  name: 'Slide',
  tableName: 'slide',
  extends: BaseEntity,
  uniques: [{ properties: ['deck', 'slideId'] }],
  checks: [{ name: 'slide_order_index_check', expression: 'order_index >= 0' }],
  // The function is in the migration; declared here so that a generated migration knows the
  // triggers (and does not drop them).
  triggers: [
    {
      name: 'slide_positions_insert',
      timing: 'after',
      events: ['insert'],
      forEach: 'statement',
      expression:
        'create trigger "slide_positions_insert" after insert on "slide" referencing new table as changed for each statement execute function slide_positions_unique()',
    },
    {
      name: 'slide_positions_update',
      timing: 'after',
      events: ['update'],
      forEach: 'statement',
      expression:
        'create trigger "slide_positions_update" after update on "slide" referencing new table as changed for each statement execute function slide_positions_unique()',
    },
  ],
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
