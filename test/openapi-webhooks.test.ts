import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventOutput } from '../domain/events/event-output.ts';
import { EVENT_PAYLOADS } from '../domain/events/event-payloads.ts';
import { EVENT_TYPES } from '../domain/events/events.ts';
import { pdf } from './helpers/documents.ts';
import { startElevenLabsStandIn } from './helpers/elevenlabs-stand-in.ts';
import { png } from './helpers/files.ts';
import * as fixtures from './helpers/fixtures.ts';
import { type HttpClient, keyClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually, type ReceivedWebhook, startWebhookReceiver } from './helpers/webhook-receiver.ts';
import { FAST_WEBHOOKS } from './helpers/webhook-scenario.ts';

/**
 * The document's `webhooks` section and `Event` schema against what the service really sends and
 * answers: one app makes every event type of the catalogue happen (callers, background work and
 * the service switching a subscription off), a real receiver subscribed to `*` gets them, and
 * each message, its headers and every entry of the event log are validated by Ajv against the
 * document served at /api/openapi.json.
 */
const CATALOGUE = Object.values(EVENT_TYPES).flat();
const KEY = 'sk_test_elevenlabs_key';

let t: TestApp;
let owner: HttpClient & { email: string; password: string };
let eleven: Awaited<ReturnType<typeof startElevenLabsStandIn>>;
let hooks: Awaited<ReturnType<typeof startWebhookReceiver>>;
let failing: Awaited<ReturnType<typeof startWebhookReceiver>>;
let document: any;
/** The first message received of each type. */
const messages = new Map<string, ReceivedWebhook>();

beforeAll(async () => {
  eleven = await startElevenLabsStandIn(KEY);
  hooks = await startWebhookReceiver();
  failing = await startWebhookReceiver(() => ({ status: 500 }));
  t = await startTestApp({
    ...FAST_WEBHOOKS,
    // Enough retries for a failing subscription to be switched off (below).
    WEBHOOK_RETRY_SCHEDULE_SECONDS: '0.2,0.2,0.2,0.2,0.2,0.2',
    WEBHOOK_DISABLE_AFTER_HOURS: '2',
    ELEVENLABS_API_KEY: KEY,
    ELEVENLABS_BASE_URL: eleven.url,
    ELEVENLABS_DEFAULT_VOICE_ID: 'v-rachel',
    SPEECH_TIMEOUT_MS: '2000',
    GENERATION_POLL_INTERVAL_MS: '50',
    EXPORT_POLL_INTERVAL_MS: '50',
  });
  owner = await t.signedInClient();
  document = (await owner.get('/api/openapi.json')).body;

  const everything = await ok(owner.post('/api/notifications/subscriptions', webhook('*', hooks.url)));
  hooks.useSecret(everything.secret);
  await causeEveryEvent();
  await eventually(() => CATALOGUE.every((type) => hooks.received.some((m) => m.body.type === type)), 30_000);
  await ok(owner.post(`/api/notifications/subscriptions/${everything.id}/test`));
  for (const message of hooks.received)
    if (!messages.has(message.body.type)) messages.set(message.body.type, message);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await hooks?.close();
  await failing?.close();
  await eleven?.close();
});

const webhook = (eventType: string, url: string) => ({
  name: `hook ${eventType}`,
  eventType,
  channel: 'webhook',
  channelConfig: { url },
});

async function ok(request: Promise<{ status: number; text: string; body: any }>) {
  const response = await request;
  expect(response.status, response.text).toBeLessThan(300);
  return response.body;
}

/** Every event type of the catalogue, each at least once. */
async function causeEveryEvent() {
  const deck = await ok(owner.post('/api/decks', { name: 'Every event' }));
  await ok(owner.patch(`/api/decks/${deck.id}`, { name: 'Every event, renamed' }));
  await ok(owner.put(`/api/decks/${deck.id}/branding`, fixtures.branding));
  await ok(owner.put(`/api/decks/${deck.id}/intro`, { title: 'Welcome', script: 'Hello.' }));
  await ok(owner.delete(`/api/decks/${deck.id}/intro`));

  const one = await ok(owner.post(`/api/decks/${deck.id}/slides`, { title: 'One', narrationScript: 'One.' }));
  const two = await ok(
    owner.post(`/api/decks/${deck.id}/slides`, { title: 'Pricing', slideType: 'product_pricing_v1' }),
  );
  await ok(owner.patch(`/api/slides/${one.id}`, { title: 'One, edited' }));
  await ok(owner.put(`/api/slides/${two.id}/product-data`, { productData: fixtures.productData }));
  await ok(owner.put(`/api/decks/${deck.id}/slides/reorder`, { slideIds: [two.id, one.id] }));
  await ok(owner.delete(`/api/slides/${two.id}`));

  // Spoken, then a job that completes (the slide left has a script).
  const faq = await ok(
    owner.post(`/api/decks/${deck.id}/faqs`, fixtures.validBodies['POST /decks/{deckId}/faqs']),
  );
  await ok(owner.patch(`/api/faqs/${faq.id}`, { userQuestion: 'Is there a free trial?' }));
  await ok(owner.delete(`/api/faqs/${faq.id}`));
  const job = await ok(owner.post(`/api/decks/${deck.id}/generate`, {}));
  await eventually(
    async () => (await owner.get(`/api/decks/${deck.id}/generate/status`)).body.status === 'completed',
  );
  // Speech down: a FAQ saved without audio, and a job that fails.
  eleven.state.tts = 'error';
  await ok(owner.post(`/api/decks/${deck.id}/faqs`, fixtures.validBodies['POST /decks/{deckId}/faqs']));
  expect((await ok(owner.post(`/api/decks/${deck.id}/generate`, {}))).jobId).not.toBe(job.jobId);
  await eventually(
    async () => (await owner.get(`/api/decks/${deck.id}/generate/status`)).body.status === 'failed',
  );
  eleven.state.tts = 'ok';

  // An export that completes (the renderers', test/exports-complete.test.ts), and one that fails: its
  // instances died three times (as they would leave it: processing, its lease lapsed).
  const exported = await ok(owner.post(`/api/decks/${deck.id}/exports`, { format: 'pdf' }));
  await eventually(
    async () => (await owner.get(`/api/exports/${exported.id}`)).body.status === 'completed',
    60_000,
  );
  await t.app.database.orm.em.getConnection().execute(
    `insert into export_job (id, organization_id, deck_id, format, status, warnings, attempt, locked_until, expires_at)
     values (gen_random_uuid(), ?, ?, 'pptx', 'processing', '[]', 3, now() - interval '1 second', now() + interval '7 days')`,
    [(await owner.get('/api/auth/me')).body.organization.id, deck.id],
  );

  const config = await ok(owner.post(`/api/decks/${deck.id}/action-configs`, fixtures.actionConfig));
  await ok(owner.patch(`/api/action-configs/${config.id}`, { repName: 'Pat' }));
  await ok(owner.patch(`/api/action-configs/${config.id}`, { status: 'published' }));
  await ok(owner.delete(`/api/action-configs/${config.id}`));

  const image = await ok(owner.upload('/api/images', { name: 'pic.png', bytes: png(2, 2) }));
  await ok(owner.delete(`/api/images/${image.id}`));
  const kb = { filename: 'notes.txt', contentType: 'text/plain', sizeBytes: 3 };
  const upload = await ok(owner.post('/api/company/kb/documents/upload-init', kb));
  await fetch(upload.uploadUrl, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'abc' });
  await ok(owner.post(`/api/company/kb/documents/${upload.documentId}/complete`, {}));
  await ok(owner.delete(`/api/company/kb/documents/${upload.documentId}`));
  await ok(
    owner.upload('/api/contracts/import', { name: 'c.pdf', bytes: await pdf('Between {a} and {b}.') }),
  );

  const logged = await ok(
    owner.post('/api/notifications/subscriptions', { name: 'log', eventType: 'deck.*', channel: 'console' }),
  );
  await ok(owner.put(`/api/notifications/subscriptions/${logged.id}`, { name: 'log, renamed' }));
  await ok(owner.delete(`/api/notifications/subscriptions/${logged.id}`));
  const rotated = await ok(
    owner.post('/api/notifications/subscriptions', webhook('contract.imported', failing.url)),
  );
  await ok(owner.post(`/api/notifications/subscriptions/${rotated.id}/rotate-secret`, { graceHours: 1 }));
  await switchedOffByTheService();

  const member = await ok(
    owner.post('/api/users', {
      email: 'm@events.test',
      name: 'Member',
      role: 'member',
      password: 'a-long-password',
    }),
  );
  await ok(owner.patch(`/api/users/${member.id}`, { name: 'Renamed' }));
  await ok(owner.delete(`/api/users/${member.id}`));
  const newPassword = `${owner.password}-new`;
  await ok(owner.post('/api/auth/password', { currentPassword: owner.password, newPassword }));
  await ok(t.client().post('/api/auth/login', { email: owner.email, password: newPassword }));

  // An API key's changes carry it as their actor.
  const key = await ok(owner.post('/api/api-keys', { name: 'ci', access: 'write' }));
  const byKey = keyClient(t.url, key.secret);
  const keyDeck = await ok(byKey.post('/api/decks', { name: 'By key' }));
  await ok(byKey.delete(`/api/decks/${keyDeck.id}`));
  await ok(owner.delete(`/api/api-keys/${key.apiKey.id}`));
}

/**
 * `notification_subscription.disabled`: a webhook whose deliveries keep failing, its failure
 * clock moved back instead of waiting (as test/webhooks.test.ts does); the next failure switches it off.
 */
async function switchedOffByTheService() {
  const doomed = await ok(
    owner.post('/api/notifications/subscriptions', webhook('deck.created', failing.url)),
  );
  await ok(owner.post('/api/decks', { name: 'Undeliverable' }));
  const sql = t.app.database.orm.em.getConnection();
  await eventually(
    async () =>
      (
        await sql.execute(
          'select 1 from notification_subscription where id = ? and failing_since is not null',
          [doomed.id],
        )
      ).length === 1,
  );
  await sql.execute(
    `update notification_subscription set failing_since = now() - interval '3 hours' where id = ?`,
    [doomed.id],
  );
  await eventually(
    async () => (await owner.get(`/api/notifications/subscriptions/${doomed.id}`)).body.isActive === false,
  );
}

/** An operation's parameters, each resolved from `components.parameters`. */
function parametersOf(operation: { parameters: { $ref: string }[] }): { name: string; schema: object }[] {
  return operation.parameters.map(({ $ref }) => document.components.parameters[$ref.split('/').pop()!]);
}

let ajv: Ajv2020 | undefined;
/** A header's schema: `uuid` is checked as a format here (it has no pattern in the document). */
const headerValidator = new Ajv2020({
  strict: false,
  formats: { uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/ },
});

/**
 * Ajv (JSON Schema 2020-12, as OpenAPI 3.1) over the served document, its `$ref`s resolved
 * inside it. Formats are not checked: each comes with the pattern that checks it.
 */
function validatorOf(pointer: string): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ ...document, $id: 'openapi.json' });
  }
  return ajv.getSchema(`openapi.json${pointer}`)!;
}

function expectValid(validate: ValidateFunction, value: unknown, what: string) {
  const valid = validate(value);
  expect(valid, `${what}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
}

describe('the OpenAPI document’s webhooks and events', () => {
  it('has one webhook per event type of the catalogue, and the test message; every type has its payload schema', () => {
    expect(Object.keys(EVENT_PAYLOADS).sort()).toEqual([...CATALOGUE].sort());
    expect(Object.keys(document.webhooks).sort()).toEqual([...CATALOGUE, 'notification.test'].sort());
    for (const [type, item] of Object.entries<any>(document.webhooks)) {
      expect(item.post.requestBody.content['application/json'].schema.$ref, type).toMatch(/Webhook$/);
      expect(parametersOf(item.post).map((p) => p.name)).toEqual([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]);
      expect(Object.keys(item.post.responses)).toContain('2XX');
    }
    expect(document.components.schemas.Event.discriminator.propertyName).toBe('eventType');
  });

  it('describes the very message, and headers, a receiver gets for each type', () => {
    expect([...messages.keys()].sort()).toEqual([...CATALOGUE, 'notification.test'].sort());
    for (const [type, message] of messages) {
      const operation = document.webhooks[type].post;
      const pointer = operation.requestBody.content['application/json'].schema.$ref;
      expectValid(validatorOf(pointer), message.body, type);
      expect(message.verified, type).toBe(true);
      const headers: Record<string, string> = {
        'webhook-id': message.id,
        'webhook-timestamp': message.timestamp,
        'webhook-signature': message.signature,
      };
      for (const parameter of parametersOf(operation)) {
        expectValid(headerValidator.compile(parameter.schema), headers[parameter.name], parameter.name);
      }
      expect(message.id).toBe(message.body.data.id);
      // A message of another type fails this type's schema: the schemas tell types apart.
      const other = [...messages.values()].find(
        (m) => m.body.type !== type && m.body.data.aggregateType !== message.body.data.aggregateType,
      )!;
      expect(validatorOf(pointer)(other.body), `${type} vs ${other.body.type}`).toBe(false);
    }
  });

  it('describes every entry of the event log as its Event, and the log’s payloads are those of the messages', async () => {
    const validate = validatorOf('#/components/schemas/Event');
    const events: any[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = (await owner.get(`/api/notifications/events?limit=100&offset=${offset}`)).body;
      events.push(...page.events);
      if (page.events.length < 100) break;
    }
    expect(new Set(events.map((e) => e.eventType))).toEqual(new Set(CATALOGUE));
    for (const event of events) {
      expectValid(validate, event, event.eventType);
      // The code's own schema takes it whole: nothing it does not list (zod would strip it).
      expect(eventOutput.parse(event), event.eventType).toEqual(event);
    }
    for (const [type, message] of messages) {
      if (type === 'notification.test') continue;
      expect(events.find((e) => e.id === message.body.data.id)?.payload, type).toEqual(
        message.body.data.payload,
      );
    }
    // Typed per type: a deck event with a slide's payload is no Event.
    const deckEvent = events.find((e) => e.eventType === 'deck.created');
    const slideEvent = events.find((e) => e.eventType === 'slide.created');
    expect(validate({ ...deckEvent, payload: slideEvent.payload })).toBe(false);
    const actors = new Set(events.map((e) => e.payload.actor.type));
    expect(actors).toEqual(new Set(['user', 'api_key', 'system']));
  });
});
