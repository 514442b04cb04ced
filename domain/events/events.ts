import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { Event } from '../../entities/Event.ts';
import { newId } from '../../entities/ids.ts';
import type { Actor } from '../context.ts';
import type { EVENT_PAYLOADS } from './event-payloads.ts';

/** The events the service records (their types, by aggregate) and how one is recorded with its change. */

/** The event catalogue of api.md: `<aggregate>.<past-tense verb>`. */
export const EVENT_TYPES = {
  deck: [
    'deck.created',
    'deck.updated',
    'deck.deleted',
    'deck.branding_updated',
    'deck.intro_saved',
    'deck.intro_deleted',
    'deck.slides_reordered',
  ],
  slide: ['slide.created', 'slide.updated', 'slide.deleted', 'slide.product_data_updated'],
  faq: ['faq.created', 'faq.updated', 'faq.deleted', 'faq.audio_failed'],
  action_config: [
    'action_config.created',
    'action_config.updated',
    'action_config.published',
    'action_config.deleted',
  ],
  generation_job: ['generation_job.started', 'generation_job.completed', 'generation_job.failed'],
  export: ['export.completed', 'export.failed'],
  image: ['image.uploaded', 'image.deleted'],
  kb_document: ['kb_document.upload_initiated', 'kb_document.uploaded', 'kb_document.deleted'],
  contract: ['contract.imported'],
  notification_subscription: [
    'notification_subscription.created',
    'notification_subscription.updated',
    'notification_subscription.deleted',
    'notification_subscription.disabled',
    'notification_subscription.secret_rotated',
  ],
  user: ['user.logged_in', 'user.created', 'user.updated', 'user.deleted', 'user.password_changed'],
  api_key: ['api_key.created', 'api_key.revoked'],
} as const;

export type AggregateType = keyof typeof EVENT_TYPES;
export type EventType<A extends AggregateType = AggregateType> = (typeof EVENT_TYPES)[A][number];

/** The aggregate an event type belongs to: the part before the dot. */
export function aggregateOf(eventType: EventType): AggregateType {
  return eventType.slice(0, eventType.indexOf('.')) as AggregateType;
}

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

/**
 * The payload of an event of type `T`, as the log, the stream and webhooks carry it
 * (event-payloads.ts; a type of the catalogue without a schema there fails the type check here).
 */
export type EventPayload<T extends EventType> = z.infer<(typeof EVENT_PAYLOADS)[T]>;

/**
 * What a call site gives for an event of type `T`: the aggregate, the payload without what
 * `recordEvent` adds (`actor`, and `deckId`, taken from here), and the deck, required exactly
 * when the type's payload carries one.
 */
export type EventSubject<T extends EventType> = {
  /** The id of the aggregate the event type names (for `deck.*` events, the deck). */
  aggregateId: string;
  /** The resource as the route returned it (the type's schema in event-payloads.ts). */
  payload: Omit<EventPayload<T>, 'actor' | 'deckId'>;
} & (EventPayload<T> extends { deckId: infer DeckId }
  ? { /** The deck the change belongs to; added to the payload too. */ deckId: DeckId }
  : { deckId?: undefined });

/** An event to record, of any type: its `type` decides the shape of the rest (`EventSubject`). */
export type PendingEvent = { [T in EventType]: Flat<{ type: T } & EventSubject<T>> }[EventType];

/** One object type instead of an intersection, so that a `type` of two values is checked against both. */
type Flat<T> = { [K in keyof T]: T[K] };

/**
 * The one way to write the event log; the aggregate type follows from the event type
 * (`slide.created` → `slide`), and the payload gets `actor` (api.md: every event records it). It only persists the entry into `em`: the caller's flush (or
 * transaction) writes it together with the change, so a change that rolls back leaves no
 * event and a committed change always has one. Its time is the database's when the row is
 * inserted, after the change's locks (`occurredAt`, entities/Event.ts): no event sets one.
 */
export function recordEvent<T extends EventType>(
  em: EntityManager,
  scope: EventScope,
  eventType: T,
  subject: EventSubject<T>,
): Event {
  const deckId = (subject.deckId as string | null | undefined) ?? null;
  const event = em.create(Event, {
    id: newId(),
    organization: scope.organizationId,
    eventType,
    aggregateType: aggregateOf(eventType) satisfies AggregateType,
    aggregateId: subject.aggregateId,
    deckId,
    payload: { ...subject.payload, ...(deckId ? { deckId } : {}), actor: { ...scope.actor } },
  });
  em.persist(event);
  return event;
}

/**
 * `recordEvent` for a one-trip write (`inOneTrip`, domain/prepared-statements.ts), whose change
 * and event are one statement: a data-modifying CTE, `<name> as (insert into event … select … from
 * <source>)`, that writes the event of the one row of `source` (none when it has none), a CTE of
 * the same statement whose row is the changed resource in its answer's shape, with its `id` and `deckId`. The payload is
 * that row as JSON with `actor` added, and its time the insert's, as `recordEvent` writes them. Only for event types whose
 * payload is the resource itself (a slide's create or delete). Its commit wakes the workers and
 * the streams as any event's does: the event table's trigger notifies (decision 079).
 */
export function eventFromRows(
  scope: EventScope,
  eventType: 'slide.created' | 'slide.deleted',
  source: string,
): [text: string, values: unknown[]] {
  return [
    `insert into event (id, organization_id, event_type, aggregate_type, aggregate_id, deck_id, payload)
     select ?::uuid, ?::uuid, ?, ?, r.id, r."deckId", to_jsonb(r) || jsonb_build_object('actor', ?::jsonb)
       from ${source} r`,
    [newId(), scope.organizationId, eventType, aggregateOf(eventType), JSON.stringify({ ...scope.actor })],
  ];
}
