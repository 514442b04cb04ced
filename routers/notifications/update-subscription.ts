import { z } from 'zod';
import { badRequest } from '../../domain/errors.ts';
import { authedProcedure } from '../trpc.ts';
import { findSubscription } from './find-subscription.ts';
import {
  subscriptionFields,
  subscriptionWithSecretOutput,
  toSubscriptionOutput,
} from './subscription.schema.ts';
import { recordSubscriptionEvent } from './subscription-events.ts';
import { checkChannelConfig, findDeckReference, newWebhookSecret } from './subscription-rules.ts';

export const updateSubscriptionInput = z.strictObject({
  subscriptionId: z.uuid(),
  name: subscriptionFields.name.optional(),
  eventType: subscriptionFields.eventType.optional(),
  channel: subscriptionFields.channel.optional(),
  channelConfig: subscriptionFields.channelConfig.optional(),
  deckId: subscriptionFields.deckId.optional(),
  isActive: subscriptionFields.isActive.optional(),
});

/**
 * Partial update. `channelConfig` is checked against the channel the subscription will
 * have; switching channel without a new config is a 400 unless the old one fits. A switch
 * to webhook creates a secret, returned in this answer only.
 */
export const updateSubscription = authedProcedure
  .meta({
    openapi: {
      method: 'PUT',
      path: '/notifications/subscriptions/{subscriptionId}',
      tags: ['notifications'],
      summary: 'Update a subscription (any of its fields; all optional)',
    },
  })
  .input(updateSubscriptionInput)
  .output(subscriptionWithSecretOutput)
  .mutation(async ({ ctx, input }) => {
    const { subscriptionId, ...changes } = input;
    if (Object.keys(changes).length === 0) throw badRequest('Send at least one field to change');
    // Locked: a concurrent delete makes this a 404 instead of an event for a deleted subscription.
    return ctx.em.transactional(async (em) => {
      const subscription = await findSubscription(em, ctx.auth, subscriptionId, { lock: true });
      const before = JSON.stringify(toSubscriptionOutput(subscription));

      const channel = changes.channel ?? subscription.channel;
      if (changes.channel !== undefined || changes.channelConfig !== undefined) {
        subscription.channelConfig = checkChannelConfig(
          ctx.services,
          channel,
          changes.channelConfig ?? subscription.channelConfig,
        );
      }
      let newSecret: string | undefined;
      if (channel === 'webhook' && !subscription.secret) {
        newSecret = newWebhookSecret();
        subscription.secret = newSecret;
      }
      if (channel !== 'webhook') subscription.secret = null;
      subscription.channel = channel;
      if (changes.name !== undefined) subscription.name = changes.name;
      if (changes.eventType !== undefined) subscription.eventType = changes.eventType;
      if (changes.isActive !== undefined) subscription.isActive = changes.isActive;
      if (changes.deckId !== undefined) {
        subscription.deck = changes.deckId ? await findDeckReference(em, ctx.auth, changes.deckId) : null;
      }
      if (JSON.stringify(toSubscriptionOutput(subscription)) === before && !newSecret) {
        return toSubscriptionOutput(subscription);
      }

      subscription.updatedAt = new Date();
      const output = toSubscriptionOutput(subscription);
      recordSubscriptionEvent(em, ctx.auth, 'notification_subscription.updated', output);
      await em.flush();
      return newSecret ? { ...output, secret: newSecret } : output;
    });
  });
