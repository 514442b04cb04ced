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
    // Locked: of two concurrent deletes one answers 404, and one event is written.
    const faq = await ctx.em.transactional(async (em) => {
      const found = await findFaq(em, ctx.auth, input.faqId, { lock: true });
      recordFaqEvent(em, ctx.auth, 'faq.deleted', await toFaqOutput(found, ctx.services));
      em.remove(found);
      await em.flush();
      return found;
    });
    if (faq.audioKey) await ctx.services.storage.delete(faq.audioKey).catch(() => {});
    return { success: true as const };
  });
