import { afterEach, expect } from 'vitest';
import type { HttpClient } from './http-client.ts';
import { startTestApp } from './test-app.ts';
import { eventually, startWebhookReceiver } from './webhook-receiver.ts';

/** Loopback receivers allowed, retries and polling fast: a webhook test runs in seconds. */
export const FAST_WEBHOOKS = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_SCHEDULE_SECONDS: '0.2,0.2,0.2',
  NOTIFICATIONS_POLL_INTERVAL_MS: '50',
};

/**
 * Apps and receivers for a webhook test file, each closed after its test (newest first).
 * Call once at the top of the file.
 */
export function webhookScenario() {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });
  const app = async (env: Record<string, string> = {}, databaseUrl?: string) => {
    const t = await startTestApp({ ...FAST_WEBHOOKS, ...env }, { databaseUrl });
    cleanup.push(() => t.close());
    return t;
  };
  const receiver = async (...args: Parameters<typeof startWebhookReceiver>) => {
    const r = await startWebhookReceiver(...args);
    cleanup.push(() => r.close());
    return r;
  };
  /** An app, a user signed in to a new organization of it, and a receiver: most tests' start. */
  const userAndReceiver = async () => {
    const t = await app();
    return { t, user: await t.signedInClient(), hooks: await receiver() };
  };
  return { app, receiver, userAndReceiver };
}

export async function subscribe(user: HttpClient, url: string, extra: Record<string, unknown> = {}) {
  const response = await user.post('/api/notifications/subscriptions', {
    name: 'Hook',
    eventType: 'slide.*',
    channel: 'webhook',
    channelConfig: { url },
    ...extra,
  });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

export const deliveriesOf = async (user: HttpClient, subscriptionId: string) =>
  (await user.get(`/api/notifications/subscriptions/${subscriptionId}/deliveries?limit=100`)).body;

/** The subscription's newest delivery, once it has that status. */
export const latestDeliveryWhen = async (user: HttpClient, subscriptionId: string, status: string) =>
  (
    await eventually(async () => {
      const body = await deliveriesOf(user, subscriptionId);
      return body.deliveries[0]?.status === status && body;
    })
  ).deliveries[0];
