import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity } from './base.ts';
import { Deck } from './Deck.ts';
import { Organization } from './Organization.ts';

export const CHANNELS = ['webhook', 'email', 'console'] as const;
export type Channel = (typeof CHANNELS)[number];

/** The access levels of domain/auth/access.ts (entities import nothing from domain/). */
export const SUBSCRIPTION_ACCESS = ['read', 'write', 'admin', 'owner'] as const;

/**
 * Which events an organization wants delivered, and where. `eventType` is an exact type,
 * `<aggregate>.*` or `*`. A webhook's secret signs deliveries; it is shown once and stored sealed.
 */
const NotificationSubscriptionSchema = defineEntity({
  name: 'NotificationSubscription',
  tableName: 'notification_subscription',
  extends: BaseEntity,
  indexes: [{ properties: ['organization', 'createdAt'] }],
  properties: {
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    name: p.string().length(200),
    eventType: p.string().length(120),
    channel: p.enum(CHANNELS),
    channelConfig: p.json<Record<string, unknown>>(),
    // Restricted to one deck's events; the subscription goes when the deck goes.
    deck: () => p.manyToOne(Deck).nullable().deleteRule('cascade').index(),
    /** Webhooks: the signing secret, sealed (adapters/secret-box.ts) for this row's id. */
    sealedSecret: p.text().nullable().hidden(),
    /** The secret before the last rotation, still signing (second) until `previousSecretExpiresAt`. */
    sealedPreviousSecret: p.text().nullable().hidden(),
    previousSecretExpiresAt: p.datetime().nullable(),
    isActive: p.boolean().default(true),
    /** Why the service switched it off (auto-disable); cleared when it is switched on again. */
    disabledReason: p.text().nullable(),
    /** Webhooks: when its deliveries started failing with no success since (auto-disable). */
    failingSince: p.datetime().nullable(),
    /**
     * The access whose events it may receive: its creator's, or that of whoever last set its
     * channel or channelConfig (where it sends). Events of API keys need owner, as in the log.
     */
    eventAccess: p.enum(SUBSCRIPTION_ACCESS).default('admin'),
  },
});

export class NotificationSubscription extends NotificationSubscriptionSchema.class {}
NotificationSubscriptionSchema.setClass(NotificationSubscription);
