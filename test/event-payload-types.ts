/**
 * Compiled by `npm run typecheck`, never run: a call site that writes the wrong payload for its
 * event type does not compile. Each `@ts-expect-error` below fails the type check if its line
 * ever compiles (TypeScript reports an unused directive), so loosening `recordEvent`'s or a
 * change step's types breaks `npm run typecheck`.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { inferRouterOutputs } from '@trpc/server';
import type { Auth } from '../domain/context.ts';
import type { DeckOutput } from '../domain/decks/deck-output.ts';
import { recordEvent } from '../domain/events/events.ts';
import type { MutationEvent } from '../domain/mutation.ts';
import type { SlideOutput } from '../domain/slides/slide-output.ts';
import type { AppRouter } from '../routers/app-router.ts';

export function wrongPayloads(em: EntityManager, auth: Auth, deck: DeckOutput, slide: SlideOutput) {
  // Right: a deck event carries the deck, and names it.
  recordEvent(em, auth, 'deck.updated', { aggregateId: deck.id, deckId: deck.id, payload: deck });

  // @ts-expect-error a deck event carries a deck, not a slide
  recordEvent(em, auth, 'deck.updated', { aggregateId: deck.id, deckId: deck.id, payload: slide });
  // @ts-expect-error a field of the resource missing
  recordEvent(em, auth, 'deck.created', { aggregateId: deck.id, deckId: deck.id, payload: { id: deck.id } });
  // @ts-expect-error a slide event belongs to a deck: its deckId is required
  recordEvent(em, auth, 'slide.created', { aggregateId: slide.id, payload: slide });
  // @ts-expect-error a user event belongs to no deck
  recordEvent(em, auth, 'user.created', { aggregateId: 'u', deckId: deck.id, payload: slide });
  // @ts-expect-error a field of the wrong type (faq.audio_failed's reason is text)
  recordEvent(em, auth, 'faq.audio_failed', { aggregateId: 'f', deckId: deck.id, payload: { reason: 1 } });
  // @ts-expect-error an event type outside the catalogue
  recordEvent(em, auth, 'deck.exploded', { aggregateId: deck.id, deckId: deck.id, payload: deck });

  // The events of a change step (changeOne, createOne, removeOne) are held to the same payloads.
  const right: MutationEvent = {
    type: 'slide.updated',
    aggregateId: slide.id,
    deckId: slide.deckId,
    payload: slide,
  };
  // @ts-expect-error a slide event carrying a deck
  const wrong: MutationEvent = {
    type: 'slide.updated',
    aggregateId: slide.id,
    deckId: slide.deckId,
    payload: deck,
  };
  // @ts-expect-error no payload: a change step names it (usually its answer)
  const missing: MutationEvent = { type: 'deck.deleted', aggregateId: deck.id, deckId: deck.id };
  return [right, wrong, missing];
}

/** The event log's entries as a tRPC client sees them: the payload follows `eventType`. */
type LoggedEvent = inferRouterOutputs<AppRouter>['notifications']['listEvents']['events'][number];

export function payloadByType(event: LoggedEvent): string | null {
  if (event.eventType === 'slide.created') return event.payload.slideId;
  if (event.eventType === 'user.logged_in') return event.payload.user.email;
  if (event.eventType === 'deck.created') {
    // @ts-expect-error a deck's payload has no slideId
    return event.payload.slideId;
  }
  return null;
}
