import type { EntityManager } from '@mikro-orm/postgresql';
import { TRPCError } from '@trpc/server';
import { DeckIntro } from '../../entities/DeckIntro.ts';
import type { Auth } from '../context.ts';
import { findDeck } from '../decks/find-deck.ts';

export async function findIntro(em: EntityManager, auth: Auth, deckId: string): Promise<DeckIntro> {
  const deck = await findDeck(em, auth, deckId);
  const intro = await em.findOne(DeckIntro, { deck });
  if (!intro) throw new TRPCError({ code: 'NOT_FOUND', message: `Deck ${deckId} has no intro` });
  return intro;
}
