import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { findDeck } from '../../domain/decks/find-deck.ts';
import { badRequest, notFound } from '../../domain/errors.ts';
import { lockRow } from '../../domain/row-lock.ts';
import { Faq } from '../../entities/Faq.ts';
import { newId } from '../../entities/ids.ts';
import { objectKeyFor } from '../object-keys.ts';
import { authedProcedure } from '../trpc.ts';
import { speakToObject } from '../../domain/voices/speak.ts';
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
    // Checked before speaking (a bad request costs no speech), and again under the lock below.
    const found = await findFaq(ctx.em, ctx.auth, faqId);
    if (changes.relatedSlideId) await findRelatedSlide(ctx.em, found.deck, changes.relatedSlideId);

    let spoken: Awaited<ReturnType<typeof speakToObject>> | undefined;
    if (changes.cannedAnswer !== undefined && changes.cannedAnswer !== found.cannedAnswer) {
      spoken = await speakToObject(
        ctx.services,
        changes.cannedAnswer,
        found.deck.voiceId ?? ctx.services.speech.defaultVoiceId,
        objectKeyFor(ctx.auth.organizationId, 'audio', found.id, `answer-${newId()}.mp3`),
      );
    }

    let result: { output: Awaited<ReturnType<typeof toFaqOutput>>; oldAudioKey?: string | null };
    try {
      // Speaking took a while: the FAQ, its deck or the related slide may be gone by now.
      // The deck's row lock (slide and deck deletes take it too), then the FAQ's own.
      result = await ctx.em.transactional(async (em) => {
        // A deleted deck took its FAQs with it.
        const deck = await findDeck(em, ctx.auth, found.deck.id, { lock: true }).catch((error: unknown) => {
          throw error instanceof TRPCError && error.code === 'NOT_FOUND' ? notFound('FAQ', faqId) : error;
        });
        const faq = await lockRow(em, Faq, faqId);
        if (!faq) throw notFound('FAQ', faqId);
        const before = JSON.stringify(await toFaqOutput(faq, ctx.services));
        const oldAudioKey = faq.audioKey;
        if (changes.relatedSlideId !== undefined) {
          faq.relatedSlide = changes.relatedSlideId
            ? await findRelatedSlide(em, deck, changes.relatedSlideId)
            : null;
        }
        if (changes.userQuestion !== undefined) faq.userQuestion = changes.userQuestion;
        if (spoken && changes.cannedAnswer !== undefined) {
          faq.cannedAnswer = changes.cannedAnswer;
          faq.audioKey = spoken.ok ? spoken.audioKey : null;
          faq.audioStatus = spoken.ok ? 'ready' : 'failed';
        }
        const unchanged = JSON.stringify(await toFaqOutput(faq, ctx.services)) === before;
        if (unchanged && !spoken) return { output: await toFaqOutput(faq, ctx.services), oldAudioKey: null };

        faq.updatedAt = new Date();
        const output = await toFaqOutput(faq, ctx.services);
        recordFaqEvent(em, ctx.auth, 'faq.updated', output);
        if (spoken && !spoken.ok)
          recordFaqEvent(em, ctx.auth, 'faq.audio_failed', output, { reason: spoken.reason });
        await em.flush();
        return { output, oldAudioKey: spoken ? oldAudioKey : null };
      });
    } catch (error) {
      if (spoken?.ok) await ctx.services.storage.delete(spoken.audioKey).catch(() => {});
      throw error;
    }
    if (result.oldAudioKey) await ctx.services.storage.delete(result.oldAudioKey).catch(() => {});
    return spoken && !spoken.ok ? { ...result.output, warning: audioWarning(spoken.reason) } : result.output;
  });
