import { z } from 'zod';
import { faqOutput } from '../../domain/faqs/faq-output.ts';
import * as faqs from '../../domain/faqs/faqs.ts';
import { deckIdInput } from '../decks/deck.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const listFaqs = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/decks/{deckId}/faqs',
      tags: ['faqs'],
      summary: 'The deck’s FAQs, oldest first',
      description:
        'Every FAQ of the deck in the order they were created, each with a playable `audioUrl` when its audio is ready.',
    },
  })
  .input(deckIdInput)
  .output(z.object({ faqs: z.array(faqOutput) }))
  .query(({ ctx, input }) => faqs.listFaqs(ctx, input.deckId));
