import { z } from 'zod';
import { findDeck } from '../../domain/decks/find-deck.ts';
import { Faq } from '../../entities/Faq.ts';
import { newId } from '../../entities/ids.ts';
import { objectKeyFor } from '../object-keys.ts';
import { authedProcedure } from '../trpc.ts';
import { speakToObject } from '../../domain/voices/speak.ts';
import { audioWarning, faqFields, faqWithWarningOutput, toFaqOutput } from './faq.schema.ts';
import { findRelatedSlide, recordFaqEvent } from './faq-rules.ts';

export const createFaqInput = z.strictObject({
  deckId: z.uuid(),
  userQuestion: faqFields.userQuestion,
  cannedAnswer: faqFields.cannedAnswer,
  relatedSlideId: faqFields.relatedSlideId.optional(),
});

/**
 * Creates a FAQ and speaks its answer with the deck's voice. If speech fails or takes too
 * long the FAQ is saved anyway, `audioStatus: failed`, with a `warning` and `faq.audio_failed`.
 */
export const createFaq = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/decks/{deckId}/faqs',
      tags: ['faqs'],
      summary: 'Create a FAQ; its answer is spoken automatically',
    },
    successStatus: 201,
  })
  .input(createFaqInput)
  .output(faqWithWarningOutput)
  .mutation(async ({ ctx, input }) => {
    const deck = await findDeck(ctx.em, ctx.auth, input.deckId);
    const relatedSlide = input.relatedSlideId
      ? await findRelatedSlide(ctx.em, deck, input.relatedSlideId)
      : null;
    const id = newId();
    const spoken = await speakToObject(
      ctx.services,
      input.cannedAnswer,
      deck.voiceId ?? ctx.services.speech.defaultVoiceId,
      objectKeyFor(ctx.auth.organizationId, 'audio', id, 'answer.mp3'),
    );
    try {
      // Speaking took a while: the deck or the related slide may have been deleted meanwhile.
      // Check again under the deck's row lock, which slide deletes (and the deck's) take too.
      const output = await ctx.em.transactional(async (em) => {
        const lockedDeck = await findDeck(em, ctx.auth, deck.id, { lock: true });
        const slide = relatedSlide ? await findRelatedSlide(em, lockedDeck, relatedSlide.id) : null;
        const now = new Date();
        const faq = em.create(Faq, {
          id,
          deck: lockedDeck,
          userQuestion: input.userQuestion,
          cannedAnswer: input.cannedAnswer,
          relatedSlide: slide,
          audioKey: spoken.ok ? spoken.audioKey : null,
          audioStatus: spoken.ok ? 'ready' : 'failed',
          createdAt: now,
          updatedAt: now,
        });
        const created = await toFaqOutput(faq, ctx.services);
        recordFaqEvent(em, ctx.auth, 'faq.created', created);
        if (!spoken.ok) recordFaqEvent(em, ctx.auth, 'faq.audio_failed', created, { reason: spoken.reason });
        await em.flush();
        return created;
      });
      return spoken.ok ? output : { ...output, warning: audioWarning(spoken.reason) };
    } catch (error) {
      // No FAQ, no audio: a failed request leaves nothing behind.
      if (spoken.ok) await ctx.services.storage.delete(spoken.audioKey).catch(() => {});
      throw error;
    }
  });
