import { z } from 'zod';
import { text } from '../shared.schema.ts';

export const deckIdInput = z.object({ deckId: z.uuid() });

export const deckName = text().trim().min(1, 'must not be empty').max(200);
/** A narration voice id, as listed by GET /api/voices/list. */
export const voiceId = text().trim().min(1).max(200);
