import { z } from 'zod';
import { successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { toFaqOutput } from './faq.schema.ts';
import { recordFaqEvent } from './faq-rules.ts';
import { findFaq } from './find-faq.ts';

export const deleteFaq = authedProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/faqs/{faqId}',
      tags: ['faqs'],
      summary: 'Delete a FAQ and its audio',
    },
  })
  .input(z.object({ faqId: z.uuid() }))
  .output(successOutput)
  .mutation(async ({ ctx, input }) => {
    const faq = await findFaq(ctx.em, ctx.auth, input.faqId);
    recordFaqEvent(ctx.em, ctx.auth, 'faq.deleted', await toFaqOutput(faq, ctx.services));
    ctx.em.remove(faq);
    await ctx.em.flush();
    if (faq.audioKey) await ctx.services.storage.delete(faq.audioKey).catch(() => {});
    return { success: true as const };
  });
