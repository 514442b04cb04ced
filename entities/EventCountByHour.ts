import { defineEntity, p } from '@mikro-orm/core';
import { Organization } from './Organization.ts';

/**
 * How many events an organization has per hour (UTC), kept by the same triggers and stripes
 * as EventCount: the total of a time range is the sum of its whole hours plus a count of the
 * events in the two partial hours at its ends. Read by `domain/events/event-log.ts`.
 */
const EventCountByHourSchema = defineEntity({
  name: 'EventCountByHour',
  tableName: 'event_count_by_hour',
  properties: {
    organization: () => p.manyToOne(Organization).primary().deleteRule('cascade'),
    hour: p.datetime().primary(),
    stripe: p.smallint().primary(),
    count: p.bigint(),
  },
});

export class EventCountByHour extends EventCountByHourSchema.class {}
EventCountByHourSchema.setClass(EventCountByHour);
