import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Deck } from '../../entities/Deck.ts';
import type { Auth } from '../context.ts';
import { notFound } from '../errors.ts';

/**
 * The caller's deck, or NOT_FOUND. Another organization's deck gets exactly the same
 * answer as a missing one, so existence never leaks across organizations.
 */
export async function findDeck(
  em: EntityManager,
  auth: Auth,
  deckId: string,
  options: { lock?: boolean } = {},
): Promise<Deck> {
  // `lock` (inside a transaction) serialises changes to the deck's slide order.
  const deck = await em.findOne(
    Deck,
    { id: deckId, organization: auth.organizationId },
    options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
  );
  if (!deck) throw notFound('Deck', deckId);
  return deck;
}

/**
 * Locks the caller's deck (inside a transaction) in one plain statement and answers its id, or
 * NOT_FOUND, for changes that need the lock but none of the deck's fields: a change to its
 * slide order waits for the one before it, and then sees every slide that one committed.
 */
export async function lockDeck(em: EntityManager, auth: Auth, deckId: string): Promise<string> {
  const [row] = await em.execute<{ id: string }[]>(
    'select id from deck where id = ? and organization_id = ? for update',
    [deckId, auth.organizationId],
  );
  if (!row) throw notFound('Deck', deckId);
  // The stored spelling: a uuid given in capitals names the same deck, and events must agree.
  return row.id;
}
