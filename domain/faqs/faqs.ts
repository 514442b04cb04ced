import { Faq } from '../../entities/Faq.ts';
import { newId } from '../../entities/ids.ts';
import type { Slide } from '../../entities/Slide.ts';
import { applyChanges } from '../changes.ts';
import type { DomainContext } from '../context.ts';
import { findDeck } from '../decks/find-deck.ts';
import { badRequest, DomainError, notFound } from '../errors.ts';
import { changeOne, createOne, type MutationEvent, removeOne } from '../mutation.ts';
import { objectKeyFor } from '../object-keys.ts';
import { lockRow } from '../row-lock.ts';
import { type SpokenAudio, speakToObject } from '../speech/speak.ts';
import {
  audioWarning,
  type FaqOutput,
  type FaqWithWarningOutput,
  faqEventPayload,
  toFaqOutput,
} from './faq-output.ts';
import { findFaq } from './find-faq.ts';
import { findRelatedSlide } from './find-related-slide.ts';

/**
 * Creates a FAQ and speaks its answer with the deck's voice. If speech fails or takes too
 * long the FAQ is saved anyway, `audioStatus: failed`, with a `warning` and `faq.audio_failed`.
 */
export async function createFaq(
  { em, services, auth }: DomainContext,
  input: { deckId: string; userQuestion: string; cannedAnswer: string; relatedSlideId?: string },
): Promise<FaqWithWarningOutput> {
  const deck = await findDeck(em, auth, input.deckId);
  const relatedSlide = input.relatedSlideId ? await findRelatedSlide(em, deck, input.relatedSlideId) : null;
  const id = newId();
  const spoken = await speakToObject(
    services,
    auth.organizationId,
    input.cannedAnswer,
    deck.voiceId ?? services.speech.defaultVoiceId,
    objectKeyFor(auth.organizationId, 'audio', id, 'answer.mp3'),
  );
  try {
    // Speaking took a while: the deck or the related slide may have been deleted meanwhile.
    // Check again under the deck's row lock, which slide deletes (and the deck's) take too.
    const output = await createOne(em, auth, {
      create: async (em) => {
        const lockedDeck = await findDeck(em, auth, deck.id, { lock: true });
        const slide = relatedSlide ? await findRelatedSlide(em, lockedDeck, relatedSlide.id) : null;
        return em.create(Faq, {
          id,
          deck: lockedDeck,
          userQuestion: input.userQuestion,
          cannedAnswer: input.cannedAnswer,
          relatedSlide: slide,
          audioKey: spoken.ok ? spoken.audioKey : null,
          audioStatus: spoken.ok ? 'ready' : 'failed',
        });
      },
      answer: (faq) => toFaqOutput(faq, services),
      event: (faq, created) => faqEvents('faq.created', faq.id, created, spoken),
    });
    return spoken.ok ? output : { ...output, warning: audioWarning(spoken.reason) };
  } catch (error) {
    // No FAQ, no audio: a failed request leaves nothing behind.
    if (spoken.ok) await services.storage.delete(spoken.audioKey).catch(() => {});
    throw error;
  }
}

/** A FAQ's event, and `faq.audio_failed` beside it when its answer could not be spoken. */
function faqEvents(
  type: 'faq.created' | 'faq.updated',
  faqId: string,
  output: FaqOutput,
  spoken: SpokenAudio | undefined,
): MutationEvent[] {
  const subject = { aggregateId: faqId, deckId: output.deckId };
  const payload = faqEventPayload(output);
  return [
    { type, ...subject, payload },
    ...(spoken && !spoken.ok
      ? [{ type: 'faq.audio_failed' as const, ...subject, payload: { ...payload, reason: spoken.reason } }]
      : []),
  ];
}

/** Oldest first. */
export async function listFaqs(
  { em, services, auth }: DomainContext,
  deckId: string,
): Promise<{ faqs: FaqOutput[] }> {
  const deck = await findDeck(em, auth, deckId);
  const faqs = await em.find(Faq, { deck }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  return { faqs: await Promise.all(faqs.map((faq) => toFaqOutput(faq, services))) };
}

export async function getFaq({ em, services, auth }: DomainContext, faqId: string): Promise<FaqOutput> {
  return toFaqOutput(await findFaq(em, auth, faqId), services);
}

/** A new answer is spoken again; the old audio (which says the old answer) is dropped either way. */
export async function updateFaq(
  { em, services, auth }: DomainContext,
  input: { faqId: string; userQuestion?: string; cannedAnswer?: string; relatedSlideId?: string | null },
): Promise<FaqWithWarningOutput> {
  const { faqId, ...changes } = input;
  if (Object.keys(changes).length === 0) throw badRequest('Send at least one field to change');
  // Checked before speaking (a bad request costs no speech), and again under the lock below.
  const found = await findFaq(em, auth, faqId);
  if (changes.relatedSlideId) await findRelatedSlide(em, found.deck, changes.relatedSlideId);

  let spoken: SpokenAudio | undefined;
  if (changes.cannedAnswer !== undefined && changes.cannedAnswer !== found.cannedAnswer) {
    spoken = await speakToObject(
      services,
      auth.organizationId,
      changes.cannedAnswer,
      found.deck.voiceId ?? services.speech.defaultVoiceId,
      objectKeyFor(auth.organizationId, 'audio', found.id, `answer-${newId()}.mp3`),
    );
  }

  let oldAudioKey: string | null = null;
  let output: FaqOutput;
  try {
    // Speaking took a while: the FAQ, its deck or the related slide may be gone by now.
    // The deck's row lock (slide and deck deletes take it too), then the FAQ's own.
    output = await changeOne(em, auth, {
      find: async (em) => {
        // A deleted deck took its FAQs with it.
        await findDeck(em, auth, found.deck.id, { lock: true }).catch((error: unknown) => {
          throw error instanceof DomainError && error.kind === 'not_found' ? notFound('FAQ', faqId) : error;
        });
        const faq = await lockRow(em, Faq, faqId);
        if (!faq) throw notFound('FAQ', faqId);
        return faq;
      },
      change: async (faq, em) => {
        if (spoken) oldAudioKey = faq.audioKey ?? null;
        let relatedSlide: Slide | null | undefined;
        if (changes.relatedSlideId !== undefined) {
          relatedSlide = changes.relatedSlideId
            ? await findRelatedSlide(em, faq.deck, changes.relatedSlideId)
            : null;
          // The same slide again is no change (compared by id: entities are not compared deeply).
          if ((relatedSlide?.id ?? null) === (faq.relatedSlide?.id ?? null)) relatedSlide = undefined;
        }
        const changed = applyChanges(faq, {
          relatedSlide,
          userQuestion: changes.userQuestion,
          ...(spoken && {
            cannedAnswer: changes.cannedAnswer,
            audioKey: spoken.ok ? spoken.audioKey : null,
            audioStatus: spoken.ok ? ('ready' as const) : ('failed' as const),
          }),
        });
        // Nothing to change and nothing spoken: the FAQ as it is, and no event. A new answer
        // spoken is always news (new audio), even if the text turned out the same.
        return changed || (spoken ? 'always' : false);
      },
      answer: (faq) => toFaqOutput(faq, services),
      event: (faq, updated) => faqEvents('faq.updated', faq.id, updated, spoken),
    });
  } catch (error) {
    if (spoken?.ok) await services.storage.delete(spoken.audioKey).catch(() => {});
    throw error;
  }
  if (oldAudioKey) await services.storage.delete(oldAudioKey).catch(() => {});
  return spoken && !spoken.ok ? { ...output, warning: audioWarning(spoken.reason) } : output;
}

/** Deletes the FAQ, then its audio (after the commit: a rollback keeps both). */
export async function deleteFaq(
  { em, services, auth }: DomainContext,
  faqId: string,
): Promise<{ success: true }> {
  let audioKey: string | null = null;
  // Locked: of two concurrent deletes one answers 404, and one event is written.
  await removeOne(em, auth, {
    find: (em) => findFaq(em, auth, faqId, { lock: true }),
    answer: (faq) => {
      audioKey = faq.audioKey ?? null;
      return toFaqOutput(faq, services);
    },
    event: (faq, output) => ({
      type: 'faq.deleted',
      aggregateId: faq.id,
      deckId: output.deckId,
      payload: faqEventPayload(output),
    }),
  });
  if (audioKey) await services.storage.delete(audioKey).catch(() => {});
  return { success: true as const };
}
