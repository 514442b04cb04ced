import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity } from './base.ts';
import { Deck } from './Deck.ts';
import { Slide } from './Slide.ts';

export const AUDIO_STATUSES = ['ready', 'failed'] as const;
export type AudioStatus = (typeof AUDIO_STATUSES)[number];

/** A question a prospect may ask, with its canned answer and that answer spoken (`audioKey`). */
const FaqSchema = defineEntity({
  name: 'Faq',
  tableName: 'faq',
  extends: BaseEntity,
  indexes: [{ properties: ['deck', 'createdAt'] }],
  properties: {
    deck: () => p.manyToOne(Deck).deleteRule('cascade'),
    userQuestion: p.text(),
    cannedAnswer: p.text(),
    // The FAQ outlives the slide it points at: the link is cleared.
    relatedSlide: () => p.manyToOne(Slide).nullable().deleteRule('set null').index(),
    audioKey: p.string().length(1024).nullable(),
    audioStatus: p.enum(AUDIO_STATUSES),
  },
});

export class Faq extends FaqSchema.class {}
FaqSchema.setClass(Faq);
