import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity } from './base.ts';
import { Deck } from './Deck.ts';

export const ACTION_CONFIG_STATUSES = ['draft', 'published'] as const;
export type ActionConfigStatus = (typeof ACTION_CONFIG_STATUSES)[number];

/** A markdown template for an action (a letter of intent, …) offered with a deck. */
const ActionConfigSchema = defineEntity({
  name: 'ActionConfig',
  tableName: 'action_config',
  extends: BaseEntity,
  indexes: [{ properties: ['deck', 'createdAt'] }],
  properties: {
    deck: () => p.manyToOne(Deck).deleteRule('cascade'),
    actionType: p.string().length(100),
    templateMarkdown: p.text(),
    disclosuresMarkdown: p.text().nullable(),
    requirementsJson: p.json<Record<string, unknown>>().nullable(),
    repName: p.string().length(200).nullable(),
    status: p.enum(ACTION_CONFIG_STATUSES).default('draft'),
    publishedAt: p.datetime().nullable(),
  },
});

export class ActionConfig extends ActionConfigSchema.class {}
ActionConfigSchema.setClass(ActionConfig);
