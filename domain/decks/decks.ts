import { Deck } from '../../entities/Deck.ts';
import { newId } from '../../entities/ids.ts';
import { applyChanges } from '../changes.ts';
import type { DomainContext } from '../context.ts';
import { changeOne, createOne, removeOne } from '../mutation.ts';
import { checkVoice } from '../voices/check-voice.ts';
import { type DeckOutput, toDeckOutput } from './deck-output.ts';
import { findDeck } from './find-deck.ts';

export async function createDeck(
  { em, services, auth }: DomainContext,
  input: { name: string; voiceId?: string | null },
): Promise<DeckOutput> {
  await checkVoice(services, input.voiceId);
  return createOne(em, auth, {
    create: (em) =>
      em.create(Deck, {
        id: newId(),
        organization: auth.organizationId,
        name: input.name,
        voiceId: input.voiceId ?? null,
      }),
    answer: toDeckOutput,
    event: (deck, answer) => ({
      type: 'deck.created',
      aggregateId: deck.id,
      deckId: deck.id,
      payload: answer,
    }),
  });
}

export async function listDecks({ em, auth }: DomainContext): Promise<{ decks: DeckOutput[] }> {
  const decks = await em.find(
    Deck,
    { organization: auth.organizationId },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  return { decks: decks.map(toDeckOutput) };
}

export async function getDeck({ em, auth }: DomainContext, deckId: string): Promise<DeckOutput> {
  return toDeckOutput(await findDeck(em, auth, deckId));
}

/** `voiceId: null` clears the deck's voice (narration then uses the default voice). */
export async function updateDeck(
  { em, services, auth }: DomainContext,
  input: { deckId: string; name?: string; voiceId?: string | null },
): Promise<DeckOutput> {
  await checkVoice(services, input.voiceId);
  // Locked: a concurrent delete makes this a 404 instead of an event for a deleted deck.
  return changeOne(em, auth, {
    find: (em) => findDeck(em, auth, input.deckId, { lock: true }),
    change: (deck) => applyChanges(deck, { name: input.name, voiceId: input.voiceId }),
    answer: toDeckOutput,
    event: (deck, answer) => ({
      type: 'deck.updated',
      aggregateId: deck.id,
      deckId: deck.id,
      payload: answer,
    }),
  });
}

/** Everything that belongs to the deck goes with it (ON DELETE CASCADE). */
export async function deleteDeck({ em, auth }: DomainContext, deckId: string): Promise<{ success: true }> {
  // Locked: of two concurrent deletes one answers 404, and one event is written.
  await removeOne(em, auth, {
    find: (em) => findDeck(em, auth, deckId, { lock: true }),
    answer: toDeckOutput,
    event: (deck, answer) => ({
      type: 'deck.deleted',
      aggregateId: deck.id,
      deckId: deck.id,
      payload: answer,
    }),
  });
  return { success: true as const };
}
