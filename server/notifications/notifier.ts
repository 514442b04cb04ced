import type { AttemptOutcome, DeliveryJob } from '../../domain/notifications/delivery-queue.ts';
import type { Services } from '../services.ts';
import { attemptDelivery } from './delivery-worker.ts';
import { createWebhookAgent } from './webhook-sender.ts';

/**
 * Sends one message through a subscription's channel (webhook, e-mail or console) and says how
 * it went; never throws. One connection pool for the whole instance: the delivery worker and a
 * subscription's test message share it.
 */
export interface Notifier {
  send(job: DeliveryJob, signal?: AbortSignal): Promise<AttemptOutcome>;
  close(): Promise<void>;
}

export function createNotifier(services: Omit<Services, 'notifier'>): Notifier {
  const agent = createWebhookAgent(services.config.notifications.allowPrivateNetworks);
  return {
    send: (job, signal) => attemptDelivery(job, services, agent, signal),
    close: () => agent.close(),
  };
}
