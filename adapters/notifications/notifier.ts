import type { Notifier } from '../../domain/ports/notifier.ts';
import { attemptDelivery, type NotifierParts } from './delivery-attempt.ts';
import { createWebhookAgent } from './webhook-sender.ts';

/** One connection pool for the whole instance: the delivery worker and a test message share it. */
export function createNotifier(parts: NotifierParts): Notifier {
  const agent = createWebhookAgent(parts.allowPrivateNetworks);
  return {
    send: (job, signal) => attemptDelivery(job, parts, agent, signal),
    close: () => agent.close(),
  };
}
