import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../rest/route-table.ts';
import { pdf } from './helpers/documents.ts';
import { StreamReader } from './helpers/event-stream.ts';
import { png } from './helpers/files.ts';
import * as fixtures from './helpers/fixtures.ts';
import type { HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/**
 * Every route that changes something writes its event, in the same transaction. Each
 * mutating route needs an entry below: how to call it, and the event it must write (null
 * only with a reason). A new route without an entry fails this test.
 */
let t: TestApp;
let user: HttpClient & { organizationId: string; userId: string; email: string; password: string };
/** The organization's live stream, held by a second owner the walk never touches (a real SSE client). */
let stream: StreamReader;

beforeAll(async () => {
  // No background generation or export: only the events the routes themselves write are counted.
  t = await startTestApp({ GENERATION_ENABLED: 'false', EXPORTS_ENABLED: 'false' });
  user = await t.signedInClient('Coverage Org');
  const watcher = await t.signedInClient('Coverage Org', 'owner');
  stream = new StreamReader(t.url, '', { cookie: watcher.cookieHeader });
  await stream.opened();
});
afterAll(async () => {
  stream?.close();
  await t.close();
});

const newDeck = async () => (await user.post('/api/decks', { name: 'Walk' })).body.id as string;
const newSlide = async (body: Record<string, unknown> = {}) =>
  (await user.post(`/api/decks/${await newDeck()}/slides`, body)).body as { id: string; deckId: string };
const newConfig = async () =>
  (await user.post(`/api/decks/${await newDeck()}/action-configs`, fixtures.actionConfig)).body.id as string;
const newFaq = async () =>
  (await user.post(`/api/decks/${await newDeck()}/faqs`, fixtures.validBodies['POST /decks/{deckId}/faqs']))
    .body.id as string;
const newSubscription = async () =>
  (
    await user.post('/api/notifications/subscriptions', {
      name: 's',
      eventType: 'deck.*',
      channel: 'console',
    })
  ).body.id as string;

let users = 0;
const newUserBody = () => ({
  email: `member${++users}@coverage.test`,
  name: 'Member',
  role: 'member',
  password: 'a-long-password',
});
const newUser = async () => (await user.post('/api/users', newUserBody())).body.id as string;

const kbDocument = { filename: 'notes.txt', contentType: 'text/plain', sizeBytes: 3 };

type Call = { path: string; body?: unknown; upload?: { name: string; bytes: Buffer } };
const routes: Record<string, { call: () => Promise<Call>; event: string | null; why?: string }> = {
  'POST /auth/login': {
    call: async () => ({ path: '/api/auth/login', body: { email: user.email, password: user.password } }),
    event: 'user.logged_in',
  },
  'POST /auth/logout': {
    call: async () => ({ path: '/api/auth/logout' }),
    event: null,
    why: 'it only revokes the caller’s session; the catalogue has no event for it',
  },
  'POST /auth/password': {
    call: async () => {
      const currentPassword = user.password;
      user.password = `${currentPassword}-changed`;
      return { path: '/api/auth/password', body: { currentPassword, newPassword: user.password } };
    },
    event: 'user.password_changed',
  },
  'POST /users': { call: async () => ({ path: '/api/users', body: newUserBody() }), event: 'user.created' },
  'PATCH /users/{userId}': {
    call: async () => ({ path: `/api/users/${await newUser()}`, body: { role: 'admin' } }),
    event: 'user.updated',
  },
  'DELETE /users/{userId}': {
    call: async () => ({ path: `/api/users/${await newUser()}` }),
    event: 'user.deleted',
  },
  'POST /decks': { call: async () => ({ path: '/api/decks', body: { name: 'x' } }), event: 'deck.created' },
  'PATCH /decks/{deckId}': {
    call: async () => ({ path: `/api/decks/${await newDeck()}`, body: { name: 'y' } }),
    event: 'deck.updated',
  },
  'DELETE /decks/{deckId}': {
    call: async () => ({ path: `/api/decks/${await newDeck()}` }),
    event: 'deck.deleted',
  },
  'PUT /decks/{deckId}/branding': {
    call: async () => ({ path: `/api/decks/${await newDeck()}/branding`, body: fixtures.branding }),
    event: 'deck.branding_updated',
  },
  'POST /decks/{deckId}/slides': {
    call: async () => ({ path: `/api/decks/${await newDeck()}/slides`, body: {} }),
    event: 'slide.created',
  },
  'PATCH /slides/{slideId}': {
    call: async () => ({ path: `/api/slides/${(await newSlide()).id}`, body: { title: 't' } }),
    event: 'slide.updated',
  },
  'DELETE /slides/{slideId}': {
    call: async () => ({ path: `/api/slides/${(await newSlide()).id}` }),
    event: 'slide.deleted',
  },
  'PUT /decks/{deckId}/slides/reorder': {
    call: async () => {
      const slide = await newSlide();
      return { path: `/api/decks/${slide.deckId}/slides/reorder`, body: { slideIds: [slide.id] } };
    },
    event: 'deck.slides_reordered',
  },
  'PUT /slides/{slideId}/product-data': {
    call: async () => ({
      path: `/api/slides/${(await newSlide({ slideType: 'product_pricing_v1' })).id}/product-data`,
      body: { productData: fixtures.productData },
    }),
    event: 'slide.product_data_updated',
  },
  'POST /decks/{deckId}/action-configs': {
    call: async () => ({ path: `/api/decks/${await newDeck()}/action-configs`, body: fixtures.actionConfig }),
    event: 'action_config.created',
  },
  'PATCH /action-configs/{actionConfigId}': {
    call: async () => ({ path: `/api/action-configs/${await newConfig()}`, body: { repName: 'Pat' } }),
    event: 'action_config.updated',
  },
  'DELETE /action-configs/{actionConfigId}': {
    call: async () => ({ path: `/api/action-configs/${await newConfig()}` }),
    event: 'action_config.deleted',
  },
  'PUT /decks/{deckId}/intro': {
    call: async () => ({ path: `/api/decks/${await newDeck()}/intro`, body: fixtures.intro }),
    event: 'deck.intro_saved',
  },
  'DELETE /decks/{deckId}/intro': {
    call: async () => {
      const deckId = await newDeck();
      await user.put(`/api/decks/${deckId}/intro`, fixtures.intro);
      return { path: `/api/decks/${deckId}/intro` };
    },
    event: 'deck.intro_deleted',
  },
  'POST /notifications/subscriptions': {
    call: async () => ({
      path: '/api/notifications/subscriptions',
      body: { name: 'n', eventType: '*', channel: 'console' },
    }),
    event: 'notification_subscription.created',
  },
  'PUT /notifications/subscriptions/{subscriptionId}': {
    call: async () => ({
      path: `/api/notifications/subscriptions/${await newSubscription()}`,
      body: { name: 'm' },
    }),
    event: 'notification_subscription.updated',
  },
  'POST /decks/{deckId}/faqs': {
    call: async () => ({
      path: `/api/decks/${await newDeck()}/faqs`,
      body: fixtures.validBodies['POST /decks/{deckId}/faqs'],
    }),
    event: 'faq.created',
  },
  'PATCH /faqs/{faqId}': {
    call: async () => ({ path: `/api/faqs/${await newFaq()}`, body: { userQuestion: 'Changed?' } }),
    event: 'faq.updated',
  },
  'DELETE /faqs/{faqId}': {
    call: async () => ({ path: `/api/faqs/${await newFaq()}` }),
    event: 'faq.deleted',
  },
  'POST /decks/{deckId}/generate': {
    call: async () => ({
      path: `/api/decks/${(await newSlide({ narrationScript: 'Hello.' })).deckId}/generate`,
      body: {},
    }),
    event: 'generation_job.started',
  },
  'POST /decks/{deckId}/exports': {
    call: async () => ({ path: `/api/decks/${await newDeck()}/exports`, body: { format: 'pdf' } }),
    event: null,
    why: 'an export’s events are how it ended, written by the worker (export.completed, export.failed; api.md)',
  },
  'DELETE /exports/{exportId}': {
    call: async () => ({
      path: `/api/exports/${(await user.post(`/api/decks/${await newDeck()}/exports`, { format: 'pdf' })).body.id}`,
    }),
    event: null,
    why: 'a canceled export ends without an event (api.md names export.completed and export.failed only)',
  },
  'POST /images': {
    call: async () => ({ path: '/api/images', upload: { name: 'pic.png', bytes: png(2, 2) } }),
    event: 'image.uploaded',
  },
  'DELETE /images/{imageId}': {
    call: async () => ({
      path: `/api/images/${(await user.upload('/api/images', { name: 'pic.png', bytes: png(2, 2) })).body.id}`,
    }),
    event: 'image.deleted',
  },
  'POST /contracts/import': {
    call: async () => ({
      path: '/api/contracts/import',
      upload: { name: 'c.pdf', bytes: await pdf('Between {a} and {b}.') },
    }),
    event: 'contract.imported',
  },
  'POST /company/kb/documents/upload-init': {
    call: async () => ({ path: '/api/company/kb/documents/upload-init', body: kbDocument }),
    event: 'kb_document.upload_initiated',
  },
  'POST /company/kb/documents/{documentId}/complete': {
    call: async () => {
      const init = (await user.post('/api/company/kb/documents/upload-init', kbDocument)).body;
      await fetch(init.uploadUrl, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'abc' });
      return { path: `/api/company/kb/documents/${init.documentId}/complete`, body: {} };
    },
    event: 'kb_document.uploaded',
  },
  'DELETE /company/kb/documents/{documentId}': {
    call: async () => ({
      path: `/api/company/kb/documents/${(await user.post('/api/company/kb/documents/upload-init', kbDocument)).body.documentId}`,
    }),
    event: 'kb_document.deleted',
  },
  'POST /notifications/deliveries/{deliveryId}/retry': {
    call: async () => {
      const subscriptionId = await newSubscription();
      await newDeck();
      const delivery = await eventually(async () => {
        const body = (await user.get(`/api/notifications/subscriptions/${subscriptionId}/deliveries`)).body;
        return body.deliveries[0]?.status === 'succeeded' && body.deliveries[0];
      });
      return { path: `/api/notifications/deliveries/${delivery.id}/retry` };
    },
    event: null,
    why: 'a retry changes no resource, and an event would itself be delivered to every * subscription',
  },
  'POST /notifications/subscriptions/{subscriptionId}/test': {
    call: async () => ({ path: `/api/notifications/subscriptions/${await newSubscription()}/test` }),
    event: null,
    why: 'the test message is sent to that subscription alone, and is not in the event log (api.md)',
  },
  'POST /notifications/subscriptions/{subscriptionId}/replay': {
    call: async () => ({
      path: `/api/notifications/subscriptions/${await newSubscription()}/replay`,
      body: { since: new Date(Date.now() - 60_000).toISOString() },
    }),
    event: null,
    why: 'a replay changes no resource: it queues deliveries of events already in the log',
  },
  'POST /notifications/subscriptions/{subscriptionId}/rotate-secret': {
    call: async () => {
      const created = await user.post('/api/notifications/subscriptions', {
        name: 'hook',
        eventType: 'contract.imported',
        channel: 'webhook',
        channelConfig: { url: 'https://hooks.example.test/deck' },
      });
      expect(created.status, created.text).toBe(201);
      return { path: `/api/notifications/subscriptions/${created.body.id}/rotate-secret` };
    },
    event: 'notification_subscription.secret_rotated',
  },
  'DELETE /notifications/subscriptions/{subscriptionId}': {
    call: async () => ({ path: `/api/notifications/subscriptions/${await newSubscription()}` }),
    event: 'notification_subscription.deleted',
  },
  'POST /api-keys': {
    call: async () => ({ path: '/api/api-keys', body: { name: 'k', access: 'read' } }),
    event: 'api_key.created',
  },
  'DELETE /api-keys/{apiKeyId}': {
    call: async () => ({
      path: `/api/api-keys/${(await user.post('/api/api-keys', { name: 'k', access: 'read' })).body.apiKey.id}`,
    }),
    event: 'api_key.revoked',
  },
};

const mutating = restRoutes.filter((p) => p.route.method !== 'GET');

async function eventLog(): Promise<{ event_type: string; actor: unknown }[]> {
  return t.app.database.orm.em
    .getConnection()
    .execute<{ event_type: string; actor: unknown }[]>(
      "select event_type, payload->'actor' as actor from event where organization_id = ? order by occurred_at, id",
      [user.organizationId],
    );
}

describe('every mutating route writes its event', () => {
  it('has an entry for every mutating route', () => {
    const missing = mutating
      .map((p) => `${p.route.method} ${p.route.path}`)
      .filter((key) => !(key in routes));
    expect(missing, 'add these routes, with their event, to test/event-coverage.test.ts').toEqual([]);
  });

  it.each(mutating.map((p) => [`${p.route.method} ${p.route.path}`, p.route.method] as const))(
    '%s',
    async (key, method) => {
      const entry = routes[key]!;
      const { path, body, upload } = await entry.call();
      const before = await eventLog();
      const response = upload
        ? await user.upload(path, upload)
        : await user.request(method, path, { json: body ?? (method === 'DELETE' ? undefined : {}) });
      expect(response.status, response.text).toBeLessThan(300);
      const written = (await eventLog()).slice(before.length);
      expect(written.map((e) => e.event_type)).toEqual(entry.event ? [entry.event] : []);
      // Every event names who caused it (api.md): here, the signed-in user.
      for (const event of written) expect(event.actor).toEqual({ type: 'user', id: user.userId });
      if (key === 'POST /auth/logout')
        await user.post('/api/auth/login', { email: user.email, password: user.password });
    },
  );
});

describe('the live stream', () => {
  it('has carried every event the walk wrote, each once, in the stream’s order', async () => {
    const written = await t.app.database.orm.em
      .getConnection()
      .execute<{ id: string; event_type: string }[]>(
        'select id, event_type from event where organization_id = ? order by tx_id, seq',
        [user.organizationId],
      );
    // After the second owner's sign-in, which opened the stream.
    const since = written.findIndex((event) => event.id === stream.ids[0]);
    const expected = written.slice(since);
    await eventually(() => stream.messages.length >= expected.length);
    // Every type the walk produced (one per mutating route), each event once, as committed.
    expect(stream.messages.map((m) => [m.id, m.type])).toEqual(expected.map((e) => [e.id, e.event_type]));
  });
});
