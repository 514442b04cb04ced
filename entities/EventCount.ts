import { defineEntity, p } from '@mikro-orm/core';
import { Organization } from './Organization.ts';

/**
 * How many events an organization has of one type, kept exact by triggers on `event` (see
 * the migration `event-counts`) in the transaction that writes or deletes the events, so
 * `pagination.total` of the event log is a sum of a few rows instead of a count of millions
 * (`EventCountByHour` does the same for time ranges).
 * A key has up to 16 `stripe` rows: each writing transaction claims one stripe of its
 * organization for its duration, so concurrent writers never wait on each other's counter.
 * Never written by the application; read by `domain/events/event-log.ts`.
 */
const EventCountSchema = defineEntity({
  name: 'EventCount',
  tableName: 'event_count',
  properties: {
    organization: () => p.manyToOne(Organization).primary().deleteRule('cascade'),
    eventType: p.string().length(100).primary(),
    aggregateType: p.string().length(100).primary(),
    stripe: p.smallint().primary(),
    count: p.bigint(),
  },
});

export class EventCount extends EventCountSchema.class {}
EventCountSchema.setClass(EventCount);
