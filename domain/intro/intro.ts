import { DeckIntro } from '../../entities/DeckIntro.ts';
import { touch } from '../changes.ts';
import type { DomainContext } from '../context.ts';
import { findDeck } from '../decks/find-deck.ts';
import { recordEvent } from '../events/record-event.ts';
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
  return em.transactional(async (em) => {
    // The deck's row lock makes concurrent first saves queue up: find-then-create is safe under it.
    const deck = await findDeck(em, auth, input.deckId, { lock: true });
    let intro = await em.findOne(DeckIntro, { deck });
    const fields = { title: input.title ?? null, script: input.script, voiceId: input.voiceId ?? null };
    if (intro) {
      // A new script needs new audio: the old one no longer says it.
      if (intro.script !== fields.script || intro.voiceId !== fields.voiceId) intro.audioKey = null;
      Object.assign(intro, fields);
      touch(intro);
    } else {
      const now = new Date();
      intro = em.create(DeckIntro, { deck, ...fields, audioKey: null, createdAt: now, updatedAt: now });
    }
    const output = await toIntroOutput(intro, services);
    recordEvent(em, auth, 'deck.intro_saved', {
      aggregateId: deck.id,
      deckId: deck.id,
      payload: introEventPayload(output),
    });
    await em.flush();
    return output;
  });
}

/** 404 when the deck has no intro. */
export async function deleteIntro(
  { em, services, auth }: DomainContext,
  deckId: string,
): Promise<{ success: true }> {
  // Under the deck's lock: of two concurrent deletes one answers 404, and one event is written.
  return em.transactional(async (em) => {
    const intro = await findIntro(em, auth, deckId, { lock: true });
    recordEvent(em, auth, 'deck.intro_deleted', {
      aggregateId: deckId,
      deckId,
      payload: introEventPayload(await toIntroOutput(intro, services)),
    });
    em.remove(intro);
    await em.flush();
    return { success: true as const };
  });
}
