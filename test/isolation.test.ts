import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../rest/route-table.ts';
import { png } from './helpers/files.ts';
import * as fixtures from './helpers/fixtures.ts';
import { expectProblem, type HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/**
 * Walks every documented route with an id in its path: a malformed id is a 400 naming the
 * parameter, and another organization's resource is a 404 identical to a missing one —
 * and neither changes anything.
 */
let t: TestApp;
let owner: HttpClient;
let stranger: HttpClient;
/** The stranger's organization calling with an admin API key instead of a session. */
let strangerKey: string;
const ids: Record<string, string> = {};

/**
 * Every route of the table with a path parameter: those whose parameters are ids (a malformed
 * one is refused by its schema) name an organization's resource; the others name something
 * every organization shares (the voice list), walked below on their own.
 */
const routesWithParameters = restRoutes.filter((r) => r.pathParameters.length > 0);
const isIdParameter = (schema: unknown) => {
  const check = schema as { safeParse(value: unknown): { success: boolean } };
  return !check.safeParse('not-a-uuid').success && check.safeParse(randomUUID()).success;
};
const routesWithIds = routesWithParameters.filter((r) =>
  r.pathParameters.every((name) => isIdParameter(r.parameters[name])),
);
const sharedRoutes = routesWithParameters.filter((r) => !routesWithIds.includes(r));

async function snapshot() {
  const rows = await t.app.database.orm.em.getConnection().execute(
    `select (select count(*) from event) as events,
            (select md5(coalesce(string_agg(s::text, ',' order by s.id), '')) from slide s) as slides,
            (select md5(coalesce(string_agg(d::text, ',' order by d.id), '')) from deck d) as decks,
            (select md5(coalesce(string_agg(a::text, ',' order by a.id), '')) from action_config a) as configs,
            (select md5(coalesce(string_agg(b::text, ','), '')) from deck_branding b) as branding,
            (select md5(coalesce(string_agg(i::text, ','), '')) from deck_intro i) as intros,
            (select md5(coalesce(string_agg(n::text, ',' order by n.id), '')) from notification_subscription n) as subs,
            (select md5(coalesce(string_agg(m::text, ',' order by m.id), '')) from image m) as images,
            (select md5(coalesce(string_agg(k::text, ',' order by k.id), '')) from kb_document k) as documents,
            (select md5(coalesce(string_agg(f::text, ',' order by f.id), '')) from faq f) as faqs,
            (select count(*) from generation_job) as jobs,
            -- Not last_used_at: using a key moves it (at most once a minute), by design.
            (select md5(coalesce(string_agg(k.id || k.name || coalesce(k.revoked_at::text, ''), ',' order by k.id), '')) from api_key k) as keys`,
  );
  return rows[0];
}

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.signedInClient('Owner Org');
  stranger = await t.signedInClient('Stranger Org');
  strangerKey = (await stranger.post('/api/api-keys', { name: 'Stranger key', access: 'admin' })).body.secret;
  ids.apiKeyId = (await owner.post('/api/api-keys', { name: 'Owned key', access: 'read' })).body.apiKey.id;
  ids.deckId = (await owner.post('/api/decks', { name: 'Owned' })).body.id;
  ids.slideId = (
    await owner.post(`/api/decks/${ids.deckId}/slides`, {
      slideType: 'product_pricing_v1',
      productData: fixtures.productData,
    })
  ).body.id;
  ids.actionConfigId = (
    await owner.post(`/api/decks/${ids.deckId}/action-configs`, fixtures.actionConfig)
  ).body.id;
  expect((await owner.put(`/api/decks/${ids.deckId}/intro`, fixtures.intro)).status).toBe(200);
  expect((await owner.put(`/api/decks/${ids.deckId}/branding`, fixtures.branding)).status).toBe(200);
  ids.imageId = (await owner.upload('/api/images', { name: 'logo.png', bytes: png(4, 3) })).body.id;
  ids.documentId = (
    await owner.post('/api/company/kb/documents/upload-init', {
      filename: 'a.txt',
      contentType: 'text/plain',
      sizeBytes: 3,
    })
  ).body.documentId;
  ids.faqId = (
    await owner.post(`/api/decks/${ids.deckId}/faqs`, { userQuestion: 'Price?', cannedAnswer: 'It depends.' })
  ).body.id;
  ids.subscriptionId = (
    await owner.post('/api/notifications/subscriptions', { name: 'Log', eventType: '*', channel: 'console' })
  ).body.id;
  // Its own creation event is delivered to it: a delivery that has finished.
  ids.deliveryId = await eventually(async () => {
    const { deliveries } = (
      await owner.get(`/api/notifications/subscriptions/${ids.subscriptionId}/deliveries`)
    ).body;
    return deliveries[0]?.status === 'succeeded' && deliveries[0].id;
  });
});
afterAll(() => t.close());

function bodyFor(method: string, path: string): unknown {
  if (method === 'GET' || method === 'DELETE') return undefined;
  const body = fixtures.validBodies[`${method} ${path}`];
  if (body === undefined)
    throw new Error(`add a valid body for ${method} ${path} to test/helpers/fixtures.ts`);
  return body;
}

describe.each(routesWithIds.map((p) => [`${p.route.method} ${p.route.path}`, p.route]))(
  '%s',
  (_name, route) => {
    const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

    it('answers a malformed id with 400 and an issue on that parameter, changing nothing', async () => {
      const before = await snapshot();
      const path = `/api${route.path.replace(/\{(\w+)\}/g, 'not-a-uuid')}`;
      const problem = expectProblem(
        await owner.request(route.method, path, { json: bodyFor(route.method, route.path) }),
        400,
        'BAD_REQUEST',
      );
      for (const param of params)
        expect(problem.issues).toContainEqual({ path: [param], message: expect.any(String) });
      expect(await snapshot()).toEqual(before);
    });

    it('answers another organization’s resource exactly like a missing one (404), changing nothing', async () => {
      const before = await snapshot();
      const foreignPath = `/api${route.path.replace(/\{(\w+)\}/g, (_m, name: string) => ids[name]!)}`;
      const missing = randomUUID();
      const missingPath = `/api${route.path.replace(/\{(\w+)\}/g, missing)}`;
      const json = bodyFor(route.method, route.path);
      const foreign = await stranger.request(route.method, foreignPath, { json });
      const absent = await stranger.request(route.method, missingPath, { json });
      expectProblem(foreign, 404, 'NOT_FOUND');
      expectProblem(absent, 404, 'NOT_FOUND');
      const normalise = (detail: string) => detail.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>');
      expect({ ...foreign.body, detail: normalise(foreign.body.detail) }).toEqual({
        ...absent.body,
        detail: normalise(absent.body.detail),
      });
      expect(await snapshot()).toEqual(before);
    });

    it('answers an API key of another organization alike for its resource and a missing one, changing nothing', async () => {
      const before = await snapshot();
      const json = bodyFor(route.method, route.path);
      const asKey = (path: string) =>
        t.client().request(route.method, path, { json, headers: { authorization: `Bearer ${strangerKey}` } });
      const foreign = await asKey(
        `/api${route.path.replace(/\{(\w+)\}/g, (_m, name: string) => ids[name]!)}`,
      );
      const absent = await asKey(`/api${route.path.replace(/\{(\w+)\}/g, randomUUID())}`);
      // An admin key may do all but the owner's routes (API keys): there its access is refused first.
      const [status, code] = route.path.startsWith('/api-keys') ? [403, 'FORBIDDEN'] : [404, 'NOT_FOUND'];
      expectProblem(foreign, status, code);
      expectProblem(absent, status, code);
      const normalise = (detail: string) => detail.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>');
      expect({ ...foreign.body, detail: normalise(foreign.body.detail) }).toEqual({
        ...absent.body,
        detail: normalise(absent.body.detail),
      });
      expect(await snapshot()).toEqual(before);
    });
  },
);

describe('routes naming what every organization shares', () => {
  it('are only the voice preview (a new one must be walked here)', () => {
    expect(sharedRoutes.map((r) => `${r.route.method} ${r.route.path}`)).toEqual([
      'GET /voices/{voiceId}/preview',
    ]);
  });

  it('GET /voices/{voiceId}/preview answers every organization alike, and an unknown voice with 404, changing nothing', async () => {
    const before = await snapshot();
    const voiceId = (await owner.get('/api/voices/list')).body.voices[0].voice_id as string;
    const mine = await owner.get(`/api/voices/${voiceId}/preview`);
    const theirs = await stranger.get(`/api/voices/${voiceId}/preview`);
    expect([mine.status, theirs.status]).toEqual([200, 200]);
    expect(theirs.headers.get('content-type')).toBe(mine.headers.get('content-type'));
    for (const client of [owner, stranger]) {
      expectProblem(await client.get('/api/voices/not-a-voice/preview'), 404, 'NOT_FOUND');
    }
    expect(await snapshot()).toEqual(before);
  });
});
