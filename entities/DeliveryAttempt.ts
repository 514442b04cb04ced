import { defineEntity, p } from '@mikro-orm/core';
import { NotificationDelivery } from './NotificationDelivery.ts';

/** One try at a delivery: what the receiver answered, how long it took, what went wrong. */
const DeliveryAttemptSchema = defineEntity({
  name: 'DeliveryAttempt',
  tableName: 'delivery_attempt',
  properties: {
    id: p.uuid().primary(),
    delivery: () => p.manyToOne(NotificationDelivery).deleteRule('cascade').index(),
    attemptNumber: p.integer(),
    attemptedAt: p.datetime(),
    statusCode: p.integer().nullable(),
    durationMs: p.integer(),
    error: p.text().nullable(),
    /** The first 2 KB of what the receiver answered, as text (webhooks). */
    responseBody: p.text().nullable(),
  },
});

export class DeliveryAttempt extends DeliveryAttemptSchema.class {}
DeliveryAttemptSchema.setClass(DeliveryAttempt);
