import { router } from '../trpc.ts';
import { createFaq } from './create-faq.ts';
import { deleteFaq } from './delete-faq.ts';
import { listFaqs } from './list-faqs.ts';
import { updateFaq } from './update-faq.ts';

export const faqsRouter = router({ create: createFaq, list: listFaqs, update: updateFaq, delete: deleteFaq });
