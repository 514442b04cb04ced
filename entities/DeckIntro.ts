import { defineEntity, p } from '@mikro-orm/core';
import { Deck } from './Deck.ts';

/** The spoken introduction of a deck; at most one per deck. `audioKey` is set by speech. */
const DeckIntroSchema = defineEntity({
  name: 'DeckIntro',
  tableName: 'deck_intro',
  properties: {
    deck: () => p.oneToOne(Deck).primary().owner().deleteRule('cascade'),
    title: p.string().length(200).nullable(),
    script: p.text(),
    voiceId: p.string().length(200).nullable(),
    audioKey: p.string().length(1024).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    // Set by the procedures themselves, so the answer and its event carry the stored value.
    updatedAt: p.datetime().onCreate(() => new Date()),
  },
});

export class DeckIntro extends DeckIntroSchema.class {}
DeckIntroSchema.setClass(DeckIntro);
