import { z } from 'zod';
import * as deliveries from '../../domain/notifications/deliveries.ts';
import { deliveryOutput } from '../../domain/notifications/delivery-output.ts';
import { paginationInput, paginationOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const listDeliveries = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/notifications/subscriptions/{subscriptionId}/deliveries',
      tags: ['notifications'],
      summary: 'The subscription’s deliveries, newest first, with every attempt',
      description:
        "The subscription's deliveries, newest first (`limit`, `offset`), each with its status, next attempt and `attemptLog` (the newest attempts: status, duration, the first 2 KB of the answer, error).",
    },
  })
  .input(z.object({ subscriptionId: z.uuid(), ...paginationInput }))
  .output(z.object({ deliveries: z.array(deliveryOutput), pagination: paginationOutput }))
  .query(({ ctx, input }) => deliveries.listDeliveries(ctx, input));
