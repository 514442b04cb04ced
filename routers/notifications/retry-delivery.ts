import { z } from 'zod';
import * as deliveries from '../../domain/notifications/deliveries.ts';
import { deliveryOutput } from '../../domain/notifications/delivery-output.ts';
import { authedProcedure } from '../trpc.ts';

export const retryDelivery = authedProcedure
  .meta({
    access: 'admin',
    openapi: {
      method: 'POST',
      path: '/notifications/deliveries/{deliveryId}/retry',
      tags: ['notifications'],
      summary: 'Queue a failed or succeeded delivery again, now',
      description:
        'The delivery is due at once and gets the whole retry schedule again; its attempt log goes on. ' +
        'A delivery still queued, or one of a switched-off subscription, is a 409.',
    },
    successStatus: 202,
  })
  .input(z.strictObject({ deliveryId: z.uuid() }))
  .output(deliveryOutput)
  .mutation(({ ctx, input }) => deliveries.retryDelivery(ctx, input.deliveryId));
