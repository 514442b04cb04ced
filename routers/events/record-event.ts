import type { EntityManager } from '@mikro-orm/postgresql';
import { Event } from '../../entities/Event.ts';
import { newId } from '../../entities/ids.ts';
import type { AggregateType, EventType } from './event-types.ts';

export interface EventInput<A extends AggregateType> {
  organizationId: string;
  aggregateType: A;
  eventType: EventType<A>;
  aggregateId: string;
  deckId?: string | null;
  /** The resource as the route returned it; `deckId` is added when the event has one. */
  payload: Record<string, unknown>;
}

/**
 * The one way to write the event log. It only persists the entry into `em`: the caller's
 * flush (or transaction) writes it together with the change, so a change that rolls back
 * leaves no event and a committed change always has one.
 */
export function recordEvent<A extends AggregateType>(em: EntityManager, input: EventInput<A>): Event {
  const deckId = input.deckId ?? null;
  const event = em.create(Event, {
    id: newId(),
    organization: input.organizationId,
    eventType: input.eventType,
    aggregateType: input.aggregateType,
    aggregateId: input.aggregateId,
    deckId,
    occurredAt: new Date(),
    payload: deckId ? { ...input.payload, deckId } : input.payload,
  });
  em.persist(event);
  return event;
}
