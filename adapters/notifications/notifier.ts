import type { Agent } from 'undici';
import type { Notifier } from '../../domain/ports/notifier.ts';
import { attemptDelivery, type NotifierParts } from './delivery-attempt.ts';
import { createWebhookAgent } from './webhook-sender.ts';

/**
 * One connection pool for the whole instance, made with its first webhook: the delivery worker
 * and a test message share it.
 */
export function createNotifier(parts: NotifierParts): Notifier {
  let agent: Promise<Agent> | undefined;
  const webhookAgent = () => {
    agent ??= createWebhookAgent(parts.allowPrivateNetworks).catch((error: unknown) => {
      // Not kept: the next webhook tries again (this attempt fails, and is retried as any failure).
      agent = undefined;
      throw error;
    });
    return agent;
  };
  return {
    send: (job, signal) => attemptDelivery(job, parts, webhookAgent, signal),
    close: async () => {
      // An agent that could not be made has nothing to close.
      await (await agent?.catch(() => undefined))?.close();
    },
  };
}
