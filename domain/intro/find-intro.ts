import type { EntityManager } from '@mikro-orm/postgresql';
import { DeckIntro } from '../../entities/DeckIntro.ts';
import type { Auth } from '../context.ts';
import { findDeck } from '../decks/find-deck.ts';
import { missing } from '../errors.ts';

/** The deck's intro, or NOT_FOUND. `lock` (inside a transaction): the deck's row is locked first, as saving the intro does. */
export async function findIntro(
  em: EntityManager,
  auth: Auth,
  deckId: string,
  options: { lock?: boolean } = {},
): Promise<DeckIntro> {
  const deck = await findDeck(em, auth, deckId, options);
  const intro = await em.findOne(DeckIntro, { deck });
  if (!intro) throw missing(`Deck ${deckId} has no intro`);
  return intro;
}
