import { defineEntity, p } from '@mikro-orm/core';
import { Organization } from './Organization.ts';

/**
 * One entry of the event log. Written in the same transaction as the change it records
 * (see `routers/events/record-event.ts`). `deckId` is a plain column, not a foreign key:
 * the log outlives the deck it talks about.
 */
const EventSchema = defineEntity({
  name: 'Event',
  tableName: 'event',
  indexes: [{ properties: ['organization', 'occurredAt', 'id'] }],
  properties: {
    id: p.uuid().primary(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    eventType: p.string().length(100),
    aggregateType: p.string().length(100),
    aggregateId: p.string().length(200),
    deckId: p.uuid().nullable(),
    occurredAt: p.datetime(),
    payload: p.json<Record<string, unknown>>(),
  },
});

export class Event extends EventSchema.class {}
EventSchema.setClass(Event);
