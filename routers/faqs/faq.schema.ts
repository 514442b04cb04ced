import { z } from 'zod';
import { text } from '../shared.schema.ts';

export const faqIdInput = z.object({ faqId: z.uuid() });

export const faqFields = {
  userQuestion: text().trim().min(1, 'must not be empty').max(1000),
  cannedAnswer: text().trim().min(1, 'must not be empty').max(5000),
  relatedSlideId: z.uuid().meta({ description: 'A slide of the same deck (its uuid)' }),
};
