import { defineEntity, p } from '@mikro-orm/core';
import { timestamps, UPDATED_AT_TRIGGER } from './base.ts';
import { Deck } from './Deck.ts';

/** The spoken introduction of a deck; at most one per deck. `audioKey` is set by speech. */
const DeckIntroSchema = defineEntity({
  name: 'DeckIntro',
  tableName: 'deck_intro',
  triggers: [UPDATED_AT_TRIGGER],
  properties: {
    deck: () => p.oneToOne(Deck).primary().owner().deleteRule('cascade'),
    title: p.string().length(200).nullable(),
    script: p.text(),
    voiceId: p.string().length(200).nullable(),
    audioKey: p.string().length(1024).nullable(),
    ...timestamps(),
  },
});

export class DeckIntro extends DeckIntroSchema.class {}
DeckIntroSchema.setClass(DeckIntro);
