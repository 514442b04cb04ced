import type { EntityManager } from '@mikro-orm/postgresql';
import { Deck } from '../../entities/Deck.ts';
import type { Auth } from '../context.ts';
import { notFound } from '../errors.ts';

/**
 * The caller's deck, or NOT_FOUND. Another organization's deck gets exactly the same
 * answer as a missing one, so existence never leaks across organizations.
 */
export async function findDeck(em: EntityManager, auth: Auth, deckId: string): Promise<Deck> {
  const deck = await em.findOne(Deck, { id: deckId, organization: auth.organizationId });
  if (!deck) throw notFound('Deck', deckId);
  return deck;
}
