import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity } from './base.ts';
import { Event } from './Event.ts';
import { NotificationSubscription } from './NotificationSubscription.ts';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event to deliver to one subscription: a unit of work in PostgreSQL, claimed by a
 * worker with a lease (`lockedUntil`), so a crashed worker's deliveries are taken up again.
 * The event's type, aggregate and time are copied here for ordering and listing.
 */
const NotificationDeliverySchema = defineEntity({
  name: 'NotificationDelivery',
  tableName: 'notification_delivery',
  extends: BaseEntity,
  indexes: [
    { properties: ['subscription', 'createdAt'] },
    { properties: ['status', 'nextAttemptAt'] },
    // A claim's "no earlier unfinished delivery of this aggregate" check: unfinished rows only
    // (`completed_at is null`, exactly the pending ones), so it stays a key lookup however much
    // history the table holds.
    {
      name: 'notification_delivery_pending_order_index',
      expression:
        'create index "notification_delivery_pending_order_index" on "notification_delivery" ("subscription_id", "aggregate_key", "event_occurred_at", "event_id") where "completed_at" is null',
    },
    // Deliveries waiting behind an earlier one of their aggregate, by age: see `wakeWaitingDeliveries`.
    {
      name: 'notification_delivery_waiting_index',
      expression: `create index "notification_delivery_waiting_index" on "notification_delivery" ("created_at") where "next_attempt_at" = 'infinity'`,
    },
  ],
  // One delivery per subscription and event, and one more per replay of it.
  uniques: [{ properties: ['subscription', 'event', 'replay'] }],
  properties: {
    subscription: () => p.manyToOne(NotificationSubscription).deleteRule('cascade'),
    event: () => p.manyToOne(Event).deleteRule('cascade'),
    eventType: p.string().length(100),
    aggregateKey: p.string().length(320),
    eventOccurredAt: p.datetime(),
    status: p.enum(DELIVERY_STATUSES).default('pending'),
    attempts: p.integer().default(0),
    /** Infinity while an earlier delivery of the same subscription and aggregate is pending. */
    nextAttemptAt: p.datetime(),
    lockedUntil: p.datetime().nullable(),
    /** The current claim's token, with `lockedUntil`: only that claim may renew or finish it. */
    claimToken: p.uuid().nullable(),
    lastStatusCode: p.integer().nullable(),
    lastError: p.text().nullable(),
    completedAt: p.datetime().nullable(),
    /**
     * The attempts made before the last manual retry: the retry schedule counts from there, so
     * a retried delivery gets the whole schedule again.
     */
    retryFromAttempt: p.integer().default(0),
    /** 0: delivered because the event happened; n: the subscription's n-th replay of it. */
    replay: p.integer().default(0),
  },
});

export class NotificationDelivery extends NotificationDeliverySchema.class {}
NotificationDeliverySchema.setClass(NotificationDelivery);
