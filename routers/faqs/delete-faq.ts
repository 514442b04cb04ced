import * as faqs from '../../domain/faqs/faqs.ts';
import { successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { faqIdInput } from './faq.schema.ts';

export const deleteFaq = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'DELETE',
      path: '/faqs/{faqId}',
      tags: ['faqs'],
      summary: 'Delete a FAQ and its audio',
      description: 'Removes the FAQ and its audio file. Write access; event `faq.deleted`.',
    },
  })
  .input(faqIdInput)
  .output(successOutput)
  .mutation(({ ctx, input }) => faqs.deleteFaq(ctx, input.faqId));
