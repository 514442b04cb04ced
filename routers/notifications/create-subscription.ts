import { z } from 'zod';
import { newId } from '../../entities/ids.ts';
import { NotificationSubscription } from '../../entities/NotificationSubscription.ts';
import { authedProcedure } from '../trpc.ts';
import {
  subscriptionFields,
  subscriptionWithSecretOutput,
  toSubscriptionOutput,
} from './subscription.schema.ts';
import { recordSubscriptionEvent } from './subscription-events.ts';
import { checkChannelConfig, findDeckReference, newWebhookSecret } from './subscription-rules.ts';

export const createSubscriptionInput = z.strictObject({
  name: subscriptionFields.name,
  eventType: subscriptionFields.eventType,
  channel: subscriptionFields.channel,
  channelConfig: subscriptionFields.channelConfig.default({}),
  deckId: subscriptionFields.deckId.optional(),
  isActive: subscriptionFields.isActive.default(true),
});

export const createSubscription = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/notifications/subscriptions',
      tags: ['notifications'],
      summary: 'Subscribe to events by webhook, e-mail or console; a webhook gets its secret once',
    },
    successStatus: 201,
  })
  .input(createSubscriptionInput)
  .output(subscriptionWithSecretOutput)
  .mutation(async ({ ctx, input }) => {
    const channelConfig = checkChannelConfig(ctx.services, input.channel, input.channelConfig);
    const deck = input.deckId ? await findDeckReference(ctx.em, ctx.auth, input.deckId) : null;
    const now = new Date();
    const subscription = ctx.em.create(NotificationSubscription, {
      id: newId(),
      organization: ctx.auth.organizationId,
      name: input.name,
      eventType: input.eventType,
      channel: input.channel,
      channelConfig,
      deck,
      secret: input.channel === 'webhook' ? newWebhookSecret() : null,
      isActive: input.isActive,
      createdAt: now,
      updatedAt: now,
    });
    const output = toSubscriptionOutput(subscription);
    recordSubscriptionEvent(ctx.em, ctx.auth, 'notification_subscription.created', output);
    await ctx.em.flush();
    return subscription.secret ? { ...output, secret: subscription.secret } : output;
  });
