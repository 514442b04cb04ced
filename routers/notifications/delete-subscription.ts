import * as subscriptions from '../../domain/notifications/subscriptions.ts';
import { successOutput } from '../shared.schema.ts';
import { adminProcedure } from '../trpc.ts';
import { subscriptionIdInput } from './subscription.schema.ts';

export const deleteSubscription = adminProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/notifications/subscriptions/{subscriptionId}',
      tags: ['notifications'],
      summary: 'Delete a subscription and its delivery history',
    },
  })
  .input(subscriptionIdInput)
  .output(successOutput)
  .mutation(({ ctx, input }) => subscriptions.deleteSubscription(ctx, input.subscriptionId));
