import { DeckIntro } from '../../entities/DeckIntro.ts';
import type { DomainContext } from '../context.ts';
import { findDeck } from '../decks/find-deck.ts';
import { changeOne, removeOne } from '../mutation.ts';
import { checkVoice } from '../voices/check-voice.ts';
import { findIntro } from './find-intro.ts';
import { type IntroOutput, introEventPayload, toIntroOutput } from './intro-output.ts';

export async function getIntro({ em, services, auth }: DomainContext, deckId: string): Promise<IntroOutput> {
  return toIntroOutput(await findIntro(em, auth, deckId), services);
}

/** Creates or replaces the intro; saving is always news (an event, `updatedAt` moves). */
export async function saveIntro(
  { em, services, auth }: DomainContext,
  input: { deckId: string; title?: string | null; script: string; voiceId?: string | null },
): Promise<IntroOutput> {
  await checkVoice(services, input.voiceId);
  const fields = { title: input.title ?? null, script: input.script, voiceId: input.voiceId ?? null };
  return changeOne(em, auth, {
    // The deck's row lock makes concurrent first saves queue up: find-then-create is safe under it.
    find: async (em) => {
      const deck = await findDeck(em, auth, input.deckId, { lock: true });
      return (
        (await em.findOne(DeckIntro, { deck })) ?? em.create(DeckIntro, { deck, ...fields, audioKey: null })
      );
    },
    change: (intro) => {
      // A new script needs new audio: the old one no longer says it.
      if (intro.script !== fields.script || intro.voiceId !== fields.voiceId) intro.audioKey = null;
      Object.assign(intro, fields);
      return 'always';
    },
    answer: (intro) => toIntroOutput(intro, services),
    event: (intro, output) => ({
      type: 'deck.intro_saved',
      aggregateId: intro.deck.id,
      deckId: intro.deck.id,
      payload: introEventPayload(output),
    }),
  });
}

/** 404 when the deck has no intro. */
export async function deleteIntro(
  { em, services, auth }: DomainContext,
  deckId: string,
): Promise<{ success: true }> {
  // Under the deck's lock: of two concurrent deletes one answers 404, and one event is written.
  await removeOne(em, auth, {
    find: (em) => findIntro(em, auth, deckId, { lock: true }),
    answer: (intro) => toIntroOutput(intro, services),
    event: (_, output) => ({
      type: 'deck.intro_deleted',
      aggregateId: deckId,
      deckId,
      payload: introEventPayload(output),
    }),
  });
  return { success: true as const };
}
