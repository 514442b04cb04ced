import { z } from 'zod';
import { subscriptionWithSecretOutput } from '../../domain/notifications/subscription-output.ts';
import * as subscriptions from '../../domain/notifications/subscriptions.ts';
import { authedProcedure } from '../trpc.ts';
import { subscriptionFields } from './subscription.schema.ts';

export const updateSubscriptionInput = z.strictObject({
  subscriptionId: z.uuid(),
  name: subscriptionFields.name.optional(),
  eventType: subscriptionFields.eventType.optional(),
  channel: subscriptionFields.channel.optional(),
  channelConfig: subscriptionFields.channelConfig.optional(),
  deckId: subscriptionFields.deckId.optional(),
  isActive: subscriptionFields.isActive.optional(),
});

export const updateSubscription = authedProcedure
  .meta({
    access: 'admin',
    openapi: {
      method: 'PUT',
      path: '/notifications/subscriptions/{subscriptionId}',
      tags: ['notifications'],
      summary: 'Update a subscription (any of its fields; all optional)',
      description:
        'Changes any of name, eventType, channel, channelConfig, deckId and isActive (at least one). Switching a disabled webhook on again (`isActive: true`) clears `disabledReason`. Admin access; event `notification_subscription.updated`.',
    },
  })
  .input(updateSubscriptionInput)
  .output(subscriptionWithSecretOutput)
  .mutation(({ ctx, input }) => subscriptions.updateSubscription(ctx, input));
