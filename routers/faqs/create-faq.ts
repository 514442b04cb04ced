import { z } from 'zod';
import { faqWithWarningOutput } from '../../domain/faqs/faq-output.ts';
import * as faqs from '../../domain/faqs/faqs.ts';
import { authedProcedure } from '../trpc.ts';
import { faqFields } from './faq.schema.ts';

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
    access: 'write',
    openapi: {
      method: 'POST',
      path: '/decks/{deckId}/faqs',
      tags: ['faqs'],
      summary: 'Create a FAQ; its answer is spoken automatically',
      description:
        "Saves a question with its canned answer, optionally tied to a slide of the same deck, and speaks the answer with the deck's voice. When speech fails, or the audio would be larger than the service allows (`SPEECH_MAX_AUDIO_BYTES`, 6 MiB by default: about 13 minutes of the built-in voice), the FAQ is still saved, with `audioStatus: failed` and a `warning` that says why. Counts against the organization's heavy limit. Events `faq.created` (and `faq.audio_failed`).",
    },
    heavy: true,
    successStatus: 201,
    location: '/faqs/{id}',
  })
  .input(createFaqInput)
  .output(faqWithWarningOutput)
  .mutation(({ ctx, input }) => faqs.createFaq(ctx, input));
