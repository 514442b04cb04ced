import type { EntityManager } from '@mikro-orm/postgresql';
import { Event } from '../../entities/Event.ts';
import { newId } from '../../entities/ids.ts';
import type { Actor } from '../context.ts';
import { type AggregateType, aggregateOf, type EventType } from './event-types.ts';

/** Who caused an event: a caller (user or API key), or the service itself (background work, operators). */
export type EventActor = Actor | { type: 'system' };

/** Events no caller caused: background jobs (generation, sweeps, auto-disable) and the admin CLI. */
export const SYSTEM_ACTOR: EventActor = { type: 'system' };

/**
 * Whose event it is: the organization, and who made the change. An `Auth` is one, so a
 * change made for a caller cannot forget its actor.
 */
export interface EventScope {
  organizationId: string;
  actor: EventActor;
}

export interface EventSubject {
  /** The id of the aggregate the event type names (for `deck.*` events, the deck). */
  aggregateId: string;
  /** The deck the change belongs to, when it belongs to one; added to the payload too. */
  deckId?: string | null;
  /** The resource as the route returned it. */
  payload: Record<string, unknown>;
}

/**
 * The one way to write the event log; the aggregate type follows from the event type
 * (`slide.created` → `slide`), and the payload gets `actor` (api.md: every event records it). It only persists the entry into `em`: the caller's flush (or
 * transaction) writes it together with the change, so a change that rolls back leaves no
 * event and a committed change always has one.
 */
export function recordEvent(
  em: EntityManager,
  scope: EventScope,
  eventType: EventType,
  subject: EventSubject,
): Event {
  const deckId = subject.deckId ?? null;
  const event = em.create(Event, {
    id: newId(),
    organization: scope.organizationId,
    eventType,
    aggregateType: aggregateOf(eventType) satisfies AggregateType,
    aggregateId: subject.aggregateId,
    deckId,
    occurredAt: new Date(),
    payload: { ...subject.payload, ...(deckId ? { deckId } : {}), actor: { ...scope.actor } },
  });
  em.persist(event);
  return event;
}
