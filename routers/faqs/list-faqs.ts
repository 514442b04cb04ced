import { z } from 'zod';
import { findDeck } from '../../domain/decks/find-deck.ts';
import { Faq } from '../../entities/Faq.ts';
import { deckIdInput } from '../decks/deck.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { faqOutput, toFaqOutput } from './faq.schema.ts';

export const listFaqs = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/decks/{deckId}/faqs',
      tags: ['faqs'],
      summary: 'The deck’s FAQs, oldest first',
    },
  })
  .input(deckIdInput)
  .output(z.object({ faqs: z.array(faqOutput) }))
  .query(async ({ ctx, input }) => {
    const deck = await findDeck(ctx.em, ctx.auth, input.deckId);
    const faqs = await ctx.em.find(Faq, { deck }, { orderBy: { createdAt: 'asc', id: 'asc' } });
    return { faqs: await Promise.all(faqs.map((faq) => toFaqOutput(faq, ctx.services))) };
  });
