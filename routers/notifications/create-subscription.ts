import { z } from 'zod';
import { subscriptionWithSecretOutput } from '../../domain/notifications/subscription-output.ts';
import * as subscriptions from '../../domain/notifications/subscriptions.ts';
import { authedProcedure } from '../trpc.ts';
import { subscriptionFields } from './subscription.schema.ts';

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
    access: 'admin',
    openapi: {
      method: 'POST',
      path: '/notifications/subscriptions',
      tags: ['notifications'],
      summary: 'Subscribe to events by webhook, e-mail or console; a webhook gets its secret once',
      description:
        "Sends matching events to a webhook URL (public addresses only, signed per Standard Webhooks), to e-mail recipients or to the service's log. `eventType` is an exact type, a prefix such as `slide.*`, or `*`; `deckId` narrows it to one deck. A webhook's signing `secret` (`whsec_…`) is in this answer only. Admin access; event `notification_subscription.created`.",
    },
    successStatus: 201,
    location: '/notifications/subscriptions/{id}',
  })
  .input(createSubscriptionInput)
  .output(subscriptionWithSecretOutput)
  .mutation(({ ctx, input }) => subscriptions.createSubscription(ctx, input));
