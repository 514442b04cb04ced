import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookAgent, sendWebhook } from '../adapters/notifications/webhook-sender.ts';
import { expectProblem, type HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually, startWebhookReceiver } from './helpers/webhook-receiver.ts';
import { subscribe as createSubscription } from './helpers/webhook-scenario.ts';

let strict: TestApp;
let user: HttpClient;
let hookId: string;
const GOOD = 'https://hooks.example.com/deck';

beforeAll(async () => {
  strict = await startTestApp({
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false',
    WEBHOOK_RETRY_SCHEDULE_SECONDS: '0.2',
    NOTIFICATIONS_POLL_INTERVAL_MS: '50',
  });
  user = await strict.signedInClient();
  hookId = (await createSubscription(user, GOOD, { eventType: 'deck.*' })).id;
});
afterAll(() => strict.close());

/** Each names this machine or a private network, however it is spelled. */
const LOCAL_URLS = [
  'http://[::127.0.0.1]/', // IPv4-compatible IPv6
  'http://[::7f00:1]:8080/x',
  'http://[::10.0.0.1]/',
  'http://[::ffff:127.0.0.1]/', // IPv4-mapped
  'http://[::ffff:10.1.2.3]/',
  'http://[::ffff:0:127.0.0.1]/', // SIIT
  'http://[64:ff9b::127.0.0.1]/', // NAT64
  'http://[64:ff9b::10.0.0.1]/',
  'http://[64:ff9b:1::192.168.0.1]/', // local-use NAT64
  'http://[2002:7f00:1::]/', // 6to4 of 127.0.0.1
  'http://[2002:c0a8:1::1]/', // 6to4 of 192.168.0.1
  'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', // Teredo
  'http://2130706433/', // 127.0.0.1 as one decimal number
  'http://0x7f.1/',
  'http://0177.0.0.1/',
  'http://0x7f000001/',
  'http://127.1/',
  'http://0.0.0.0/',
  'http://0/',
  'http://[::]/',
  'http://[::1]/',
  'http://localhost./',
  'http://LOCALHOST../',
  'http://localhost:3000/',
  'http://api.localhost/',
  'http://api.localhost./',
  'http://169.254.169.254/latest/meta-data',
  'http://[fe80::1]/',
  'http://[fd00::1]/',
  'http://100.64.0.1/',
];

const CREDENTIAL_URLS = [
  'https://user:secret-password@hooks.example.com/',
  'https://user@hooks.example.com/',
  'https://:secret-password@hooks.example.com/',
];

const subscribe = (client: HttpClient, url: string) =>
  client.post('/api/notifications/subscriptions', {
    name: 'x',
    eventType: '*',
    channel: 'webhook',
    channelConfig: { url },
  });

describe('webhook addresses are refused at creation and on update', () => {
  it.each(LOCAL_URLS)('%s', async (url) => {
    const problem = expectProblem(await subscribe(user, url), 400, 'BAD_REQUEST');
    expect(problem.issues).toEqual([
      { path: ['channelConfig', 'url'], message: expect.stringMatching(/private|this machine/) },
    ]);
    const update = await user.put(`/api/notifications/subscriptions/${hookId}`, { channelConfig: { url } });
    expect(expectProblem(update, 400, 'BAD_REQUEST').issues?.[0]?.path).toEqual(['channelConfig', 'url']);
  });

  it.each(CREDENTIAL_URLS)('%s (credentials, not stored nor echoed)', async (url) => {
    for (const response of [
      await subscribe(user, url),
      await user.put(`/api/notifications/subscriptions/${hookId}`, { channelConfig: { url } }),
    ]) {
      const problem = expectProblem(response, 400, 'BAD_REQUEST');
      expect(problem.issues).toEqual([
        { path: ['channelConfig', 'url'], message: 'must not contain a user name or password' },
      ]);
      expect(response.text).not.toContain('secret-password');
    }
  });

  it('nothing was stored, and the existing subscription kept its address', async () => {
    const { subscriptions } = (await user.get('/api/notifications/subscriptions')).body;
    expect(subscriptions.map((s: { channelConfig: unknown }) => s.channelConfig)).toEqual([{ url: GOOD }]);
  });

  it('public addresses are still accepted', async () => {
    for (const url of [
      'http://8.8.8.8/hook',
      'https://[2001:4860:4860::8888]/hook',
      'https://hooks.example.com./x',
    ]) {
      const response = await subscribe(user, url);
      expect(response.status, `${url}: ${response.text}`).toBe(201);
      await user.delete(`/api/notifications/subscriptions/${response.body.id}`);
    }
  });

  it('credentials are refused even where private networks are allowed', async () => {
    const permissive = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    try {
      const other = await permissive.signedInClient();
      expectProblem(await subscribe(other, CREDENTIAL_URLS[0]!), 400, 'BAD_REQUEST');
      expect((await subscribe(other, 'http://[::127.0.0.1]/')).status).toBe(201);
    } finally {
      await permissive.close();
    }
  });
});

describe('delivery applies the same rule', () => {
  it('a stored address that creation would refuse is not contacted', async () => {
    const hooks = await startWebhookReceiver();
    try {
      const port = new URL(hooks.url).port;
      // As a row written before the rule existed: straight into the table.
      await strict.app.database.orm.em
        .getConnection()
        .execute('update notification_subscription set channel_config = ? where id = ?', [
          JSON.stringify({ url: `http://[::127.0.0.1]:${port}/` }),
          hookId,
        ]);
      const deck = (await user.post('/api/decks', { name: 'Delivery check' })).body;
      const delivery = await eventually(async () => {
        const { deliveries } = (await user.get(`/api/notifications/subscriptions/${hookId}/deliveries`)).body;
        return deliveries.find((d: { attempts: number }) => d.attempts >= 1);
      });
      expect(delivery.lastError).toContain('refused: ');
      expect(delivery.lastError).toContain('private or loopback address (::7f00:1)');
      expect(hooks.received).toHaveLength(0);
      expect(deck.id).toBeDefined();
    } finally {
      await hooks.close();
    }
  });

  it('the sender refuses credentials and local names before connecting', async () => {
    const hooks = await startWebhookReceiver();
    const agent = await createWebhookAgent(false);
    try {
      const url = new URL(hooks.url);
      for (const target of [
        `http://user:pw@127.0.0.1:${url.port}/`,
        `http://localhost.:${url.port}/`,
        `http://[::ffff:127.0.0.1]:${url.port}/`,
      ]) {
        const result = await sendWebhook({
          agent,
          url: target,
          secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
          eventId: 'evt',
          body: '{}',
          timeoutMs: 2000,
          allowPrivateNetworks: false,
        });
        expect(result.error, target).toMatch(/^refused: /);
      }
      expect(hooks.received).toHaveLength(0);
    } finally {
      await agent.close();
      await hooks.close();
    }
  });
});
