import { z } from 'zod';
import { Faq } from '../../entities/Faq.ts';
import { newId } from '../../entities/ids.ts';
import { findDeck } from '../decks/find-deck.ts';
import { objectKeyFor } from '../object-keys.ts';
import { authedProcedure } from '../trpc.ts';
import { speakToObject } from '../voices/speak.ts';
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
    const now = new Date();
    const faq = ctx.em.create(Faq, {
      id,
      deck,
      userQuestion: input.userQuestion,
      cannedAnswer: input.cannedAnswer,
      relatedSlide,
      audioKey: spoken.ok ? spoken.audioKey : null,
      audioStatus: spoken.ok ? 'ready' : 'failed',
      createdAt: now,
      updatedAt: now,
    });
    const output = await toFaqOutput(faq, ctx.services);
    recordFaqEvent(ctx.em, ctx.auth, 'faq.created', output);
    if (!spoken.ok) recordFaqEvent(ctx.em, ctx.auth, 'faq.audio_failed', output, { reason: spoken.reason });
    try {
      await ctx.em.flush();
    } catch (error) {
      if (spoken.ok) await ctx.services.storage.delete(spoken.audioKey).catch(() => {});
      throw error;
    }
    return spoken.ok ? output : { ...output, warning: audioWarning(spoken.reason) };
  });
