import { defineEntity, p } from '@mikro-orm/core';
import { Organization } from './Organization.ts';

/**
 * One entry of the event log. Written in the same transaction as the change it records
 * (see `domain/events/events.ts`). `deckId` is a plain column, not a foreign key:
 * the log outlives the deck it talks about.
 */
const EventSchema = defineEntity({
  name: 'Event',
  tableName: 'event',
  // Each filter of GET /api/notifications/events has an index that also serves the order
  // (occurredAt desc, id desc), so a page never sorts. Totals without a time range or an
  // aggregate id come from `event_count` (EventCount.ts); the others count along these indexes.
  indexes: [
    { properties: ['organization', 'occurredAt', 'id'] },
    { properties: ['organization', 'eventType', 'occurredAt', 'id'] },
    { properties: ['organization', 'aggregateType', 'occurredAt', 'id'] },
    { properties: ['organization', 'aggregateId', 'occurredAt', 'id'] },
    // `deckId`: the deck's own events and those of everything in it (null for the rest).
    { properties: ['organization', 'deckId', 'occurredAt', 'id'] },
    // The live stream's order (txId, seq): the instance's reader, and a resume within one organization.
    { name: 'event_stream_index', properties: ['txId', 'seq'] },
    { name: 'event_organization_stream_index', properties: ['organization', 'txId', 'seq'] },
    // The outbox: only events the dispatcher has not handled yet, in the order it takes them.
    {
      name: 'event_undispatched_index',
      expression:
        'create index "event_undispatched_index" on "event" ("occurred_at", "id") where "dispatched_at" is null',
    },
  ],
  // `event_count` (EventCount.ts) follows every insert and delete; the functions and the
  // truncate trigger are in the migration `event-counts`. Declared here so that a generated
  // migration knows them (and does not drop them).
  triggers: [
    // Every commit that wrote events, whatever wrote them, wakes each instance's stream reader and
    // notification worker (adapters/events/commit-listener.ts, decision 079).
    {
      name: 'event_log_notify',
      timing: 'after',
      events: ['insert'],
      forEach: 'statement',
      expression:
        'create trigger "event_log_notify" after insert on "event" for each statement execute function "event_log_notify"()',
    },
    {
      name: 'event_count_insert',
      timing: 'after',
      events: ['insert'],
      forEach: 'statement',
      expression:
        'create trigger "event_count_insert" after insert on "event" referencing new table as changed for each statement execute function event_count_apply()',
    },
    {
      name: 'event_count_delete',
      timing: 'after',
      events: ['delete'],
      forEach: 'statement',
      expression:
        'create trigger "event_count_delete" after delete on "event" referencing old table as changed for each statement execute function event_count_apply()',
    },
    {
      name: 'event_counted_keys_fixed',
      timing: 'before',
      events: ['update'],
      forEach: 'row',
      expression:
        'create trigger "event_counted_keys_fixed" before update of organization_id, event_type, aggregate_type on "event" for each row when (old.organization_id is distinct from new.organization_id or old.event_type is distinct from new.event_type or old.aggregate_type is distinct from new.aggregate_type) execute function event_counted_keys_fixed()',
    },
  ],
  properties: {
    id: p.uuid().primary(),
    /**
     * The transaction that wrote it (xid8) and its place in the sequence: the order of the live
     * stream, both set by the database (migration `live-events`, decision 049; `seq` a bigserial).
     * Not loaded.
     */
    txId: p.string().columnType('xid8').defaultRaw('pg_current_xact_id()').lazy(),
    seq: p.bigint().autoincrement().lazy(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    eventType: p.string().length(100),
    aggregateType: p.string().length(100),
    aggregateId: p.string().length(200),
    deckId: p.uuid().nullable(),
    /**
     * When the change was written: the database's clock at the event's insert (`clock_timestamp()`,
     * not the transaction's start), which comes after the locks the change waited for, so the events
     * of writes serialised by a lock (a deck's) are in the order of the writes. Never set by the service.
     */
    occurredAt: p.datetime().defaultRaw('clock_timestamp()'),
    payload: p.json<Record<string, unknown>>(),
    /** Set when the dispatcher has made its deliveries; null rows are the outbox. */
    dispatchedAt: p.datetime().nullable(),
  },
});

export class Event extends EventSchema.class {}
EventSchema.setClass(Event);
