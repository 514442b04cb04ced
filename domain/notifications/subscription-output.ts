import { z } from 'zod';
import {
  CHANNELS,
  type NotificationSubscription,
  SUBSCRIPTION_ACCESS,
} from '../../entities/NotificationSubscription.ts';
import { missingAccess } from '../auth/access.ts';
import type { Auth } from '../context.ts';
import { maskChannelConfig } from './webhook-url-mask.ts';

/** A subscription as every route answers it and as its events carry it: never with its secret. */
export const subscriptionOutput = z
  .object({
    id: z.uuid(),
    organizationId: z.uuid(),
    name: z.string(),
    eventType: z.string(),
    channel: z.enum(CHANNELS),
    channelConfig: z.record(z.string(), z.unknown()).meta({
      description:
        'webhook: {url}, whole for admin and owner access; below it, and in events, path segments that are ' +
        'not plain words, query values and the fragment read *** (docs/decisions/023-webhook-url-masking.md)',
    }),
    deckId: z.uuid().nullable(),
    isActive: z.boolean(),
    eventAccess: z.enum(SUBSCRIPTION_ACCESS).meta({
      description:
        'The access whose events it receives: of whoever created it or last set its channel or channelConfig. ' +
        'Events of users need admin, of API keys owner, as in the event log',
    }),
    disabledReason: z
      .string()
      .nullable()
      .meta({ description: 'Why the service switched it off; cleared when it is switched on again' }),
    previousSecretExpiresAt: z.iso.datetime().nullable().meta({
      description: 'Webhooks, after a secret rotation: until then messages carry the old signature too',
    }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'NotificationSubscription' });

/** With `secret`: the answer of a create (or a switch to webhook), the only time it is shown. */
export const subscriptionWithSecretOutput = subscriptionOutput.extend({
  secret: z
    .string()
    .optional()
    .meta({ description: 'Webhook signing secret (whsec_…), shown only when it is created' }),
});

export type SubscriptionOutput = z.infer<typeof subscriptionOutput>;
export type SubscriptionWithSecretOutput = z.infer<typeof subscriptionWithSecretOutput>;

/**
 * The subscription with its webhook URL masked: as events carry it (read by every caller of the
 * log, and sent to other subscriptions) and as callers below admin see it.
 */
export function toSubscriptionOutput(
  subscription: NotificationSubscription,
  { wholeUrl = false }: { wholeUrl?: boolean } = {},
): SubscriptionOutput {
  return {
    id: subscription.id,
    organizationId: subscription.organization.id,
    name: subscription.name,
    eventType: subscription.eventType,
    channel: subscription.channel,
    channelConfig: wholeUrl ? subscription.channelConfig : maskChannelConfig(subscription.channelConfig),
    deckId: subscription.deck?.id ?? null,
    isActive: subscription.isActive,
    eventAccess: subscription.eventAccess,
    disabledReason: subscription.disabledReason ?? null,
    previousSecretExpiresAt: subscription.previousSecretExpiresAt?.toISOString() ?? null,
    createdAt: subscription.createdAt.toISOString(),
    updatedAt: subscription.updatedAt.toISOString(),
  };
}

/** The subscription as an answer to `auth`: the whole URL for those who may change it (admin). */
export function subscriptionAnswer(subscription: NotificationSubscription, auth: Auth): SubscriptionOutput {
  return toSubscriptionOutput(subscription, { wholeUrl: missingAccess(auth, 'admin') === null });
}
