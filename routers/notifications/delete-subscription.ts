import * as subscriptions from '../../domain/notifications/subscriptions.ts';
import { successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { subscriptionIdInput } from './subscription.schema.ts';

export const deleteSubscription = authedProcedure
  .meta({
    access: 'admin',
    openapi: {
      method: 'DELETE',
      path: '/notifications/subscriptions/{subscriptionId}',
      tags: ['notifications'],
      summary: 'Delete a subscription and its delivery history',
      description:
        'Stops the subscription and removes it with its delivery history. Admin access; event `notification_subscription.deleted`.',
    },
  })
  .input(subscriptionIdInput)
  .output(successOutput)
  .mutation(({ ctx, input }) => subscriptions.deleteSubscription(ctx, input.subscriptionId));
