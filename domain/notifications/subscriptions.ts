import { newId } from '../../entities/ids.ts';
import { type Channel, NotificationSubscription } from '../../entities/NotificationSubscription.ts';
import { accessOf } from '../auth/access.ts';
import { applyChanges } from '../changes.ts';
import type { DomainContext } from '../context.ts';
import { badRequest } from '../errors.ts';
import { createOne, type MutationEvent, recordEvents, removeOne, writeAndReload } from '../mutation.ts';
import { findSubscription } from './find-subscription.ts';
import {
  type SubscriptionOutput,
  type SubscriptionWithSecretOutput,
  subscriptionAnswer,
  toSubscriptionOutput,
} from './subscription-output.ts';
import { checkChannelConfig, checkEventTypeReadable, findDeckReference } from './subscription-rules.ts';
import { newSealedWebhookSecret } from './webhook-secret.ts';

export interface SubscriptionFields {
  name: string;
  eventType: string;
  channel: Channel;
  channelConfig: Record<string, unknown>;
  deckId: string | null;
  isActive: boolean;
}

/**
 * A webhook subscription gets its signing secret here, shown in this answer only. It receives
 * the events its creator's access may read (`eventAccess`).
 */
export async function createSubscription(
  { em, services, auth }: DomainContext,
  input: Omit<SubscriptionFields, 'deckId'> & { deckId?: string | null },
): Promise<SubscriptionWithSecretOutput> {
  checkEventTypeReadable(input.eventType, accessOf(auth));
  const channelConfig = checkChannelConfig(services, input.channel, input.channelConfig);
  const deck = input.deckId ? await findDeckReference(em, auth, input.deckId) : null;
  const id = newId();
  const secret = input.channel === 'webhook' ? newSealedWebhookSecret(services.secretBox, id) : null;
  const answer = await createOne(em, auth, {
    create: (em) =>
      em.create(NotificationSubscription, {
        id,
        organization: auth.organizationId,
        name: input.name,
        eventType: input.eventType,
        channel: input.channel,
        channelConfig,
        deck,
        sealedSecret: secret?.sealedSecret ?? null,
        isActive: input.isActive,
        eventAccess: accessOf(auth),
      }),
    answer: (subscription) => subscriptionAnswer(subscription, auth),
    event: (subscription) => subscriptionEvent('notification_subscription.created', subscription),
  });
  return secret ? { ...answer, secret: secret.secret } : answer;
}

/** A subscription's event: it carries the subscription with its webhook URL masked. */
function subscriptionEvent(
  type:
    | 'notification_subscription.created'
    | 'notification_subscription.updated'
    | 'notification_subscription.deleted',
  subscription: NotificationSubscription,
): MutationEvent {
  const payload = toSubscriptionOutput(subscription);
  return { type, aggregateId: subscription.id, deckId: payload.deckId, payload };
}

/** Oldest first. */
export async function listSubscriptions({
  em,
  auth,
}: DomainContext): Promise<{ subscriptions: SubscriptionOutput[] }> {
  const subscriptions = await em.find(
    NotificationSubscription,
    { organization: auth.organizationId },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  return { subscriptions: subscriptions.map((subscription) => subscriptionAnswer(subscription, auth)) };
}

export async function getSubscription(
  { em, auth }: DomainContext,
  subscriptionId: string,
): Promise<SubscriptionOutput> {
  return subscriptionAnswer(await findSubscription(em, auth, subscriptionId), auth);
}

/**
 * Partial update. `channelConfig` is checked against the channel the subscription will
 * have; switching channel without a new config is a 400 unless the old one fits. A switch
 * to webhook creates a secret, returned in this answer only; a switch away discards it.
 * Whoever sends `channel` or `channelConfig` decides where it sends, so its `eventAccess`
 * becomes theirs: an admin who points an owner's subscription elsewhere does not take the
 * owner's events (API keys') with it.
 */
export async function updateSubscription(
  { em, services, auth }: DomainContext,
  input: { subscriptionId: string } & Partial<SubscriptionFields>,
): Promise<SubscriptionWithSecretOutput> {
  const { subscriptionId, ...changes } = input;
  if (Object.values(changes).every((value) => value === undefined)) {
    throw badRequest('Send at least one field to change');
  }
  // Locked: a concurrent delete makes this a 404 instead of an event for a deleted subscription.
  return em.transactional(async (em) => {
    const subscription = await findSubscription(em, auth, subscriptionId, { lock: true });
    const channel = changes.channel ?? subscription.channel;
    const channelConfig =
      changes.channel !== undefined || changes.channelConfig !== undefined
        ? checkChannelConfig(services, channel, changes.channelConfig ?? subscription.channelConfig)
        : undefined;
    const deck =
      changes.deckId === undefined
        ? undefined
        : changes.deckId === null
          ? null
          : await findDeckReference(em, auth, changes.deckId);
    const eventAccess =
      changes.channel !== undefined || changes.channelConfig !== undefined
        ? accessOf(auth)
        : subscription.eventAccess;
    if (changes.eventType !== undefined || eventAccess !== subscription.eventAccess) {
      checkEventTypeReadable(changes.eventType ?? subscription.eventType, eventAccess);
    }
    const newSecret =
      channel === 'webhook' && !subscription.sealedSecret
        ? newSealedWebhookSecret(services.secretBox, subscription.id)
        : undefined;
    const changed = applyChanges(subscription, {
      name: changes.name,
      eventType: changes.eventType,
      isActive: changes.isActive,
      // Switched on again: the service's reason for switching it off, and the failure clock, go.
      ...(changes.isActive === true && !subscription.isActive
        ? { disabledReason: null, failingSince: null }
        : {}),
      channel,
      channelConfig,
      eventAccess,
      deck,
      // A switch away from webhook discards the secrets, a rotation's older one included.
      ...(channel === 'webhook'
        ? { sealedSecret: newSecret?.sealedSecret }
        : { sealedSecret: null, sealedPreviousSecret: null, previousSecretExpiresAt: null }),
    });
    // An update that changes nothing is answered with the subscription as it is, and writes no event.
    if (!changed) return subscriptionAnswer(subscription, auth);
    await writeAndReload(em, subscription);
    recordEvents(em, auth, subscriptionEvent('notification_subscription.updated', subscription));
    await em.flush();
    const answer = subscriptionAnswer(subscription, auth);
    return newSecret ? { ...answer, secret: newSecret.secret } : answer;
  });
}

/** Its deliveries go with it (ON DELETE CASCADE). */
export async function deleteSubscription(
  { em, auth }: DomainContext,
  subscriptionId: string,
): Promise<{ success: true }> {
  // Locked: of two concurrent deletes one answers 404, and one event is written.
  await removeOne(em, auth, {
    find: (em) => findSubscription(em, auth, subscriptionId, { lock: true }),
    answer: toSubscriptionOutput,
    event: (subscription) => subscriptionEvent('notification_subscription.deleted', subscription),
  });
  return { success: true as const };
}
