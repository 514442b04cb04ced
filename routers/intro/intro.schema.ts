import { z } from 'zod';
import { voiceId } from '../decks/deck.schema.ts';
import { text } from '../shared.schema.ts';

export const introInput = z.strictObject({
  deckId: z.uuid(),
  title: text().trim().max(200).nullable().optional(),
  script: text().trim().min(1, 'must not be empty').max(20_000),
  voiceId: voiceId.nullable().optional(),
});
