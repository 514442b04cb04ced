import { z } from 'zod';
import type { Deck } from '../../entities/Deck.ts';
import { text } from '../shared.schema.ts';

export const deckIdInput = z.object({ deckId: z.uuid() });

export const deckName = text().trim().min(1, 'must not be empty').max(200);
/** A narration voice id, as listed by GET /api/voices/list. */
export const voiceId = text().trim().min(1).max(200);

export const deckOutput = z
  .object({
    id: z.uuid(),
    organizationId: z.uuid(),
    name: z.string(),
    voiceId: z.string().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Deck' });

export type DeckOutput = z.infer<typeof deckOutput>;

export function toDeckOutput(deck: Deck): DeckOutput {
  return {
    id: deck.id,
    organizationId: deck.organization.id,
    name: deck.name,
    voiceId: deck.voiceId ?? null,
    createdAt: deck.createdAt.toISOString(),
    updatedAt: deck.updatedAt.toISOString(),
  };
}
