import { defineEntity, p } from '@mikro-orm/core';
import { timestamps, UPDATED_AT_TRIGGER } from './base.ts';
import { Deck } from './Deck.ts';

/** The branding of one deck, stored whole (PUT replaces it); validated by its zod schema. */
const DeckBrandingSchema = defineEntity({
  name: 'DeckBranding',
  tableName: 'deck_branding',
  triggers: [UPDATED_AT_TRIGGER],
  properties: {
    deck: () => p.oneToOne(Deck).primary().owner().deleteRule('cascade'),
    data: p.json<Record<string, unknown>>(),
    ...timestamps(),
  },
});

export class DeckBranding extends DeckBrandingSchema.class {}
DeckBrandingSchema.setClass(DeckBranding);
