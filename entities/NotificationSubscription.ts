import { defineEntity, p } from '@mikro-orm/core';
import { Deck } from './Deck.ts';
import { Organization } from './Organization.ts';

export const CHANNELS = ['webhook', 'email', 'console'] as const;
export type Channel = (typeof CHANNELS)[number];

/**
 * Which events an organization wants delivered, and where. `eventType` is an exact type,
 * `<aggregate>.*` or `*`. `secret` (webhooks only) signs deliveries; it is shown once.
 */
const NotificationSubscriptionSchema = defineEntity({
  name: 'NotificationSubscription',
  tableName: 'notification_subscription',
  indexes: [{ properties: ['organization', 'createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    name: p.string().length(200),
    eventType: p.string().length(120),
    channel: p.enum(CHANNELS),
    channelConfig: p.json<Record<string, unknown>>(),
    // Restricted to one deck's events; the subscription goes when the deck goes.
    deck: () => p.manyToOne(Deck).nullable().deleteRule('cascade').index(),
    secret: p.string().length(100).nullable().hidden(),
    isActive: p.boolean().default(true),
    createdAt: p.datetime().onCreate(() => new Date()),
    // Set by the procedures themselves, so the answer and its event carry the stored value.
    updatedAt: p.datetime().onCreate(() => new Date()),
  },
});

export class NotificationSubscription extends NotificationSubscriptionSchema.class {}
NotificationSubscriptionSchema.setClass(NotificationSubscription);
