import { defineEntity, p } from '@mikro-orm/core';
import { Deck } from './Deck.ts';

/** The branding of one deck, stored whole (PUT replaces it); validated by its zod schema. */
const DeckBrandingSchema = defineEntity({
  name: 'DeckBranding',
  tableName: 'deck_branding',
  properties: {
    deck: () => p.oneToOne(Deck).primary().owner().deleteRule('cascade'),
    data: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    // Set by the procedures themselves, so the answer and its event carry the stored value.
    updatedAt: p.datetime().onCreate(() => new Date()),
  },
});

export class DeckBranding extends DeckBrandingSchema.class {}
DeckBrandingSchema.setClass(DeckBranding);
