import { router } from '../trpc.ts';
import { createFaq } from './create-faq.ts';
import { deleteFaq } from './delete-faq.ts';
import { getFaq } from './get-faq.ts';
import { listFaqs } from './list-faqs.ts';
import { updateFaq } from './update-faq.ts';

/** Router keys are the procedures' names (file, export and key agree): `faqs.createFaq`. */
export const faqsRouter = router({ createFaq, listFaqs, getFaq, updateFaq, deleteFaq });
