import { z } from 'zod';
import { newId } from '../../entities/ids.ts';
import { badRequest } from '../errors.ts';
import { objectKeyFor } from '../object-keys.ts';
import { authedProcedure } from '../trpc.ts';
import { speakToObject } from '../voices/speak.ts';
import { audioWarning, faqFields, faqWithWarningOutput, toFaqOutput } from './faq.schema.ts';
import { findRelatedSlide, recordFaqEvent } from './faq-rules.ts';
import { findFaq } from './find-faq.ts';

export const updateFaqInput = z.strictObject({
  faqId: z.uuid(),
  userQuestion: faqFields.userQuestion.optional(),
  cannedAnswer: faqFields.cannedAnswer.optional(),
  relatedSlideId: faqFields.relatedSlideId.nullable().optional(),
});

/** A new answer is spoken again; the old audio (which says the old answer) is dropped either way. */
export const updateFaq = authedProcedure
  .meta({
    openapi: {
      method: 'PATCH',
      path: '/faqs/{faqId}',
      tags: ['faqs'],
      summary: 'Edit a FAQ (a new answer is spoken again)',
    },
  })
  .input(updateFaqInput)
  .output(faqWithWarningOutput)
  .mutation(async ({ ctx, input }) => {
    const { faqId, ...changes } = input;
    if (Object.keys(changes).length === 0) throw badRequest('Send at least one field to change');
    const faq = await findFaq(ctx.em, ctx.auth, faqId);
    const before = JSON.stringify(await toFaqOutput(faq, ctx.services));
    if (changes.relatedSlideId !== undefined) {
      faq.relatedSlide = changes.relatedSlideId
        ? await findRelatedSlide(ctx.em, faq.deck, changes.relatedSlideId)
        : null;
    }
    if (changes.userQuestion !== undefined) faq.userQuestion = changes.userQuestion;

    const oldAudioKey = faq.audioKey;
    let spoken: Awaited<ReturnType<typeof speakToObject>> | undefined;
    if (changes.cannedAnswer !== undefined && changes.cannedAnswer !== faq.cannedAnswer) {
      faq.cannedAnswer = changes.cannedAnswer;
      spoken = await speakToObject(
        ctx.services,
        changes.cannedAnswer,
        faq.deck.voiceId ?? ctx.services.speech.defaultVoiceId,
        objectKeyFor(ctx.auth.organizationId, 'audio', faq.id, `answer-${newId()}.mp3`),
      );
      faq.audioKey = spoken.ok ? spoken.audioKey : null;
      faq.audioStatus = spoken.ok ? 'ready' : 'failed';
    }
    const unchanged = JSON.stringify(await toFaqOutput(faq, ctx.services)) === before;
    if (unchanged && !spoken) return toFaqOutput(faq, ctx.services);

    faq.updatedAt = new Date();
    const output = await toFaqOutput(faq, ctx.services);
    recordFaqEvent(ctx.em, ctx.auth, 'faq.updated', output);
    if (spoken && !spoken.ok)
      recordFaqEvent(ctx.em, ctx.auth, 'faq.audio_failed', output, { reason: spoken.reason });
    try {
      await ctx.em.flush();
    } catch (error) {
      if (spoken?.ok) await ctx.services.storage.delete(spoken.audioKey).catch(() => {});
      throw error;
    }
    if (spoken && oldAudioKey) await ctx.services.storage.delete(oldAudioKey).catch(() => {});
    return spoken && !spoken.ok ? { ...output, warning: audioWarning(spoken.reason) } : output;
  });
