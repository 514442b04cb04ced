import { faqOutput } from '../../domain/faqs/faq-output.ts';
import * as faqs from '../../domain/faqs/faqs.ts';
import { authedProcedure } from '../trpc.ts';
import { faqIdInput } from './faq.schema.ts';

export const getFaq = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/faqs/{faqId}',
      tags: ['faqs'],
      summary: 'Get a FAQ',
      description: "One FAQ of the caller's organization, with a signed address of its spoken answer.",
    },
  })
  .input(faqIdInput)
  .output(faqOutput)
  .query(({ ctx, input }) => faqs.getFaq(ctx, input.faqId));
