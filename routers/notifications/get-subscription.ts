import { subscriptionOutput } from '../../domain/notifications/subscription-output.ts';
import * as subscriptions from '../../domain/notifications/subscriptions.ts';
import { authedProcedure } from '../trpc.ts';
import { subscriptionIdInput } from './subscription.schema.ts';

export const getSubscription = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/notifications/subscriptions/{subscriptionId}',
      tags: ['notifications'],
      summary: 'Get a subscription',
      description:
        "One subscription of the caller's organization; below admin access a webhook's URL is masked. The secret is never shown here.",
    },
  })
  .input(subscriptionIdInput)
  .output(subscriptionOutput)
  .query(({ ctx, input }) => subscriptions.getSubscription(ctx, input.subscriptionId));
