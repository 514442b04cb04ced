import { z } from 'zod';
import { EVENT_PAYLOADS } from './event-payloads.ts';
import { aggregateOf, EVENT_TYPES, type EventType } from './events.ts';

/**
 * An entry of the event log as its readers get it (`GET /notifications/events`, the live
 * stream): one shape per event type, told apart by `eventType`, each with its own payload.
 * The one module the log and the stream take it from.
 */

/** Every event type of the catalogue, in its order. */
export const ALL_EVENT_TYPES = Object.values(EVENT_TYPES).flat() as EventType[];

/** `slide.product_data_updated` → `SlideProductDataUpdated`: the event type's part of component names. */
export function eventTypeName(type: string): string {
  return type.replace(/(?:^|[._])([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

/** An event's id and time: one component each in the document, shared by every type and message. */
export const eventId = z.uuid().meta({
  id: 'EventId',
  description: 'The event’s id; a webhook message’s `webhook-id`, the same on every retry',
});
export const eventTime = z.iso
  .datetime()
  .meta({ id: 'EventTime', description: 'When the event was recorded' });

/** The log entry of one event type. */
function eventOutputOf<T extends EventType>(type: T) {
  return z
    .object({
      id: eventId,
      eventType: z.literal(type),
      aggregateType: z.literal(aggregateOf(type) as AggregateOf<T>),
      aggregateId: z.string(),
      occurredAt: eventTime,
      payload: EVENT_PAYLOADS[type],
    })
    .meta({ id: `${eventTypeName(type)}Event` });
}

/** `slide.created` → `slide`, as a type. */
type AggregateOf<T extends string> = T extends `${infer A}.${string}` ? A : never;

type EventOutputOf = { [T in EventType]: ReturnType<typeof eventOutputOf<T>> }[EventType];

export const eventOutput = z
  .discriminatedUnion('eventType', ALL_EVENT_TYPES.map(eventOutputOf) as [EventOutputOf, ...EventOutputOf[]])
  .meta({
    id: 'Event',
    description: 'An entry of the event log: its `payload` is the one its `eventType` carries',
  });

export type EventOutput = z.infer<typeof eventOutput>;

/**
 * What the log's answer is checked against at run time: any event as stored, its payload a JSON
 * object kept whole. Events are history: each payload was held to its type's schema when it was
 * written (`recordEvent`'s types, test/event-payloads.test.ts), and one written by an earlier
 * version (before a field was added to its resource) is served as it was written, not refused.
 */
export const storedEventOutput = z.object({
  id: z.uuid(),
  eventType: z.string(),
  aggregateType: z.string(),
  aggregateId: z.string(),
  occurredAt: z.iso.datetime(),
  // A loose object checks that and copies it in one pass; a record would run a key and a value
  // schema per field (bench:http: a third of an event page's garbage).
  payload: z.looseObject({}),
});
