import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity } from './base.ts';
import { Organization } from './Organization.ts';

const DeckSchema = defineEntity({
  name: 'Deck',
  tableName: 'deck',
  extends: BaseEntity,
  indexes: [{ properties: ['organization', 'createdAt'] }],
  properties: {
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    name: p.string().length(200),
    voiceId: p.string().length(200).nullable(),
  },
});

export class Deck extends DeckSchema.class {}
DeckSchema.setClass(Deck);
