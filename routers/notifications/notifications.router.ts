import { router } from '../trpc.ts';
import { createSubscription } from './create-subscription.ts';
import { deleteSubscription } from './delete-subscription.ts';
import { getSubscription } from './get-subscription.ts';
import { listDeliveries } from './list-deliveries.ts';
import { listEvents } from './list-events.ts';
import { listSubscriptions } from './list-subscriptions.ts';
import { replaySubscription } from './replay-subscription.ts';
import { retryDelivery } from './retry-delivery.ts';
import { rotateSubscriptionSecret } from './rotate-subscription-secret.ts';
import { testSubscription } from './test-subscription.ts';
import { updateSubscription } from './update-subscription.ts';

export const notificationsRouter = router({
  listEvents,
  createSubscription,
  listSubscriptions,
  getSubscription,
  updateSubscription,
  deleteSubscription,
  listDeliveries,
  retryDelivery,
  testSubscription,
  replaySubscription,
  rotateSubscriptionSecret,
});
