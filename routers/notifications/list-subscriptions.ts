import { z } from 'zod';
import { subscriptionOutput } from '../../domain/notifications/subscription-output.ts';
import * as subscriptions from '../../domain/notifications/subscriptions.ts';
import { noInput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const listSubscriptions = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/notifications/subscriptions',
      tags: ['notifications'],
      summary: 'The organization’s subscriptions, oldest first',
      description:
        'Every subscription of the organization, oldest first; below admin access webhook URLs are masked.',
    },
  })
  .input(noInput)
  .output(z.object({ subscriptions: z.array(subscriptionOutput) }))
  .query(({ ctx }) => subscriptions.listSubscriptions(ctx));
