import { defineEntity, p } from '@mikro-orm/core';
import { Organization } from './Organization.ts';

const DeckSchema = defineEntity({
  name: 'Deck',
  tableName: 'deck',
  indexes: [{ properties: ['organization', 'createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    name: p.string().length(200),
    voiceId: p.string().length(200).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    // Set by the procedures themselves, so the answer and its event carry the stored value.
    updatedAt: p.datetime().onCreate(() => new Date()),
  },
});

export class Deck extends DeckSchema.class {}
DeckSchema.setClass(Deck);
