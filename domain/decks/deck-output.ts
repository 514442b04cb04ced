import { z } from 'zod';
import type { Deck } from '../../entities/Deck.ts';

/** A deck as every route answers it (and as its events carry it). */
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
