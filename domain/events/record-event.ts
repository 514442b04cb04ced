import type { EntityManager } from '@mikro-orm/postgresql';
import { Event } from '../../entities/Event.ts';
import { newId } from '../../entities/ids.ts';
import { type AggregateType, aggregateOf, type EventType } from './event-types.ts';

/** Whose event it is: the organization (and, for changes made by a caller, who made it). */
export interface EventScope {
  organizationId: string;
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
 * (`slide.created` → `slide`). It only persists the entry into `em`: the caller's flush (or
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
    payload: deckId ? { ...subject.payload, deckId } : subject.payload,
  });
  em.persist(event);
  return event;
}
