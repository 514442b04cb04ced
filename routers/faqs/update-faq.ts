import { z } from 'zod';
import { faqWithWarningOutput } from '../../domain/faqs/faq-output.ts';
import * as faqs from '../../domain/faqs/faqs.ts';
import { authedProcedure } from '../trpc.ts';
import { faqFields } from './faq.schema.ts';

export const updateFaqInput = z.strictObject({
  faqId: z.uuid(),
  userQuestion: faqFields.userQuestion.optional(),
  cannedAnswer: faqFields.cannedAnswer.optional(),
  relatedSlideId: faqFields.relatedSlideId.nullable().optional(),
});

/** A new answer is spoken again; the old audio (which says the old answer) is dropped either way. */
export const updateFaq = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'PATCH',
      path: '/faqs/{faqId}',
      tags: ['faqs'],
      summary: 'Edit a FAQ (a new answer is spoken again)',
      description:
        'Changes the question, the answer or the related slide (at least one). A new answer is spoken again, so this counts against the heavy limit; a failed attempt is reported as on create. Event `faq.updated`.',
    },
    heavy: true,
  })
  .input(updateFaqInput)
  .output(faqWithWarningOutput)
  .mutation(({ ctx, input }) => faqs.updateFaq(ctx, input));
