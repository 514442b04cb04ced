import type { EntityManager } from '@mikro-orm/postgresql';
import { TRPCError } from '@trpc/server';
import type { Auth } from '../../domain/context.ts';
import { findDeck } from '../../domain/decks/find-deck.ts';
import { DeckIntro } from '../../entities/DeckIntro.ts';

/** `lock` (inside a transaction): the deck's row is locked first, as saving the intro does. */
export async function findIntro(
  em: EntityManager,
  auth: Auth,
  deckId: string,
  options: { lock?: boolean } = {},
): Promise<DeckIntro> {
  const deck = await findDeck(em, auth, deckId, options);
  const intro = await em.findOne(DeckIntro, { deck });
  if (!intro) throw new TRPCError({ code: 'NOT_FOUND', message: `Deck ${deckId} has no intro` });
  return intro;
}
