import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { png } from './helpers/files.ts';
import { expectProblem, type HttpClient, type HttpResponse } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * api.md, "Rate limits": RATE_LIMIT_PER_MINUTE requests a minute per caller, and
 * HEAVY_LIMIT_PER_MINUTE heavy requests a minute per organization; RateLimit-* headers on
 * every answer to a signed-in caller; 429 with Retry-After past a limit, writing nothing.
 * Low limits here; each test signs in callers of its own (the counts are per caller).
 */
const PER_CALLER = 6;
const HEAVY = 3;
let t: TestApp;
let db: pg.Client;

beforeAll(async () => {
  t = await startTestApp({
    RATE_LIMIT_PER_MINUTE: String(PER_CALLER),
    HEAVY_LIMIT_PER_MINUTE: String(HEAVY),
  });
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db.end();
  await t.close();
});

function limits(response: HttpResponse) {
  return {
    limit: Number(response.headers.get('ratelimit-limit')),
    remaining: Number(response.headers.get('ratelimit-remaining')),
    reset: Number(response.headers.get('ratelimit-reset')),
  };
}

const uploadImage = (client: HttpClient) => client.upload('/api/images', { name: 'a.png', bytes: png(4, 4) });

async function count(sql: string, params: unknown[]): Promise<number> {
  return (await db.query(sql, params)).rows[0].n;
}

describe('rate limits', () => {
  it('every answer to a signed-in caller carries the headers, the remainder counting down', async () => {
    const user = await t.signedInClient();
    const first = await user.get('/api/decks');
    expect(first.status).toBe(200);
    expect(limits(first).limit).toBe(PER_CALLER);
    expect(limits(first).remaining).toBe(PER_CALLER - 1);
    expect(limits(first).reset).toBeGreaterThanOrEqual(1);
    expect(limits(first).reset).toBeLessThanOrEqual(60);
    // Errors count and carry them too.
    const missing = await user.get('/api/decks/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(limits(missing).remaining).toBe(PER_CALLER - 2);
    const invalid = await user.post('/api/decks', { name: '' });
    expect(invalid.status).toBe(400);
    expect(limits(invalid).remaining).toBe(PER_CALLER - 3);
    // A 403 too (REST checks access before reading anything, but after counting, as /trpc does).
    const member = await t.signedInClient(undefined, 'member');
    await member.get('/api/decks');
    const forbidden = await member.post('/api/notifications/subscriptions', {
      name: 'Hook',
      eventType: '*',
      channel: 'console',
      channelConfig: {},
    });
    expectProblem(forbidden, 403, 'FORBIDDEN');
    expect(limits(forbidden)).toMatchObject({ limit: PER_CALLER, remaining: PER_CALLER - 2 });
  });

  it('at the limit the request runs; one past it is a 429 with Retry-After that writes nothing', async () => {
    const user = await t.signedInClient();
    for (let i = 1; i <= PER_CALLER; i += 1) {
      const answer = await user.post('/api/decks', { name: `Deck ${i}` });
      expect(answer.status).toBe(201);
      expect(limits(answer).remaining).toBe(PER_CALLER - i);
    }
    const refused = await user.post('/api/decks', { name: 'One too many' });
    expectProblem(refused, 429, 'TOO_MANY_REQUESTS');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limits(refused).remaining).toBe(0);
    expect(await count('select count(*)::int as n from deck where name = $1', ['One too many'])).toBe(0);
    expect(
      await count(
        `select count(*)::int as n from event where event_type = 'deck.created' and organization_id = $1`,
        [user.organizationId],
      ),
    ).toBe(PER_CALLER);
    // A refused request with an Idempotency-Key does not use up the key either.
    const keyed = await user.request('POST', '/api/decks', {
      json: { name: 'Keyed' },
      headers: { 'Idempotency-Key': 'limited-key' },
    });
    expectProblem(keyed, 429, 'TOO_MANY_REQUESTS');
    expect(
      await count('select count(*)::int as n from idempotency_key where key = $1', ['limited-key']),
    ).toBe(0);
    // Another caller is not affected.
    const other = await t.signedInClient();
    expect((await other.get('/api/decks')).status).toBe(200);
  });

  it('the heavy limit is shared by the users of one organization, not by another organization', async () => {
    const owner = await t.signedInClient('Heavy users');
    const member = await t.signedInClient('Heavy users', 'member');
    expect((await uploadImage(owner)).status).toBe(201);
    const second = await uploadImage(member);
    expect(second.status).toBe(201);
    // The heavy limit is the nearer one: the headers speak of it.
    expect(limits(second)).toMatchObject({ limit: HEAVY, remaining: HEAVY - 2 });
    expect((await uploadImage(owner)).status).toBe(201);
    const refused = await uploadImage(member);
    expectProblem(refused, 429, 'TOO_MANY_REQUESTS');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(
      await count('select count(*)::int as n from image where organization_id = $1', [owner.organizationId]),
    ).toBe(HEAVY);
    // Light requests of the same users still pass.
    expect((await member.get('/api/images')).status).toBe(200);
    const elsewhere = await t.signedInClient('Other heavy org');
    expect((await uploadImage(elsewhere)).status).toBe(201);
  });

  it('a /trpc batch of N calls counts N requests, and a batch past the limit runs none of them', async () => {
    const user = await t.signedInClient();
    const batch = (n: number) =>
      user.request('POST', `/trpc/${Array(n).fill('decks.createDeck').join(',')}?batch=1`, {
        json: Object.fromEntries(Array.from({ length: n }, (_, i) => [i, { name: `Batched ${n}` }])),
      });
    const three = await batch(3);
    expect(three.status).toBe(200);
    expect(limits(three).remaining).toBe(PER_CALLER - 3);
    const single = await user.get('/api/decks');
    expect(limits(single).remaining).toBe(PER_CALLER - 4);
    const tooMany = await batch(3);
    expect(tooMany.status).toBe(429);
    expect(Number(tooMany.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await count('select count(*)::int as n from deck where name = $1', ['Batched 3'])).toBe(3);
  });

  it('heavy calls in a /trpc batch count against the organization', async () => {
    const user = await t.signedInClient('Heavy over trpc');
    const deck = await user.post('/api/decks', { name: 'FAQ host' });
    const missingFaq = { faqId: '00000000-0000-4000-8000-000000000000', cannedAnswer: 'x' };
    // Counted before the input is read: even calls that fail count.
    const answer = await user.request(
      'POST',
      '/trpc/faqs.updateFaq,faqs.updateFaq,decks.updateDeck?batch=1',
      {
        json: { 0: missingFaq, 1: missingFaq, 2: { deckId: deck.body.id, name: 'Renamed' } },
      },
    );
    expect(answer.status).toBe(207);
    expect(limits(answer)).toMatchObject({ limit: HEAVY, remaining: HEAVY - 2 });
    expect((await uploadImage(user)).status).toBe(201);
    expectProblem(await uploadImage(user), 429, 'TOO_MANY_REQUESTS');
  });

  it('a /trpc call the caller may not make (403) spends no heavy quota, as on REST', async () => {
    const owner = await t.signedInClient('Heavy read key');
    const deck = await owner.post('/api/decks', { name: 'FAQ host' });
    const created = await owner.post('/api/api-keys', { name: 'Reader', access: 'read' });
    expect(created.status).toBe(201);
    const reader = t.client();
    const asReader = { authorization: `Bearer ${created.body.secret}` };
    const faq = { deckId: deck.body.id, userQuestion: 'Q?', cannedAnswer: 'A.' };
    const batch = await reader.request(
      'POST',
      `/trpc/${Array(HEAVY).fill('faqs.createFaq').join(',')}?batch=1`,
      {
        json: Object.fromEntries(Array.from({ length: HEAVY }, (_, i) => [i, faq])),
        headers: asReader,
      },
    );
    expect(batch.status).toBe(403);
    const single = await reader.request('POST', '/trpc/faqs.createFaq', { json: faq, headers: asReader });
    expect(single.status).toBe(403);
    // The organization's heavy quota is whole: its writers may still make every heavy request.
    for (let i = 0; i < HEAVY; i += 1) expect((await uploadImage(owner)).status).toBe(201);
    expectProblem(await uploadImage(owner), 429, 'TOO_MANY_REQUESTS');
  });

  it('each instance counts for itself: with two, a caller may make twice the limit (documented)', async () => {
    const second = await startTestApp(
      { RATE_LIMIT_PER_MINUTE: String(PER_CALLER), HEAVY_LIMIT_PER_MINUTE: String(HEAVY) },
      { databaseUrl: t.databaseUrl },
    );
    try {
      const user = await t.signedInClient();
      const elsewhere = second.client();
      for (const [name, value] of user.cookies) elsewhere.cookies.set(name, value);
      for (let i = 0; i < PER_CALLER; i += 1) expect((await user.get('/api/decks')).status).toBe(200);
      expectProblem(await user.get('/api/decks'), 429, 'TOO_MANY_REQUESTS');
      const there = await elsewhere.get('/api/decks');
      expect(there.status).toBe(200);
      expect(limits(there).remaining).toBe(PER_CALLER - 1);
    } finally {
      await second.close();
    }
  });

  it('an /api path no route serves (404) and a method a path does not take (405) carry them too', async () => {
    const user = await t.signedInClient();
    const unknown = await user.get('/api/no-such-route');
    expectProblem(unknown, 404, 'NOT_FOUND');
    expect(limits(unknown)).toMatchObject({ limit: PER_CALLER, remaining: PER_CALLER - 1 });
    const wrongMethod = await user.request('PUT', '/api/decks');
    expectProblem(wrongMethod, 405, 'METHOD_NOT_ALLOWED');
    expect(wrongMethod.headers.get('allow')).toContain('GET');
    expect(limits(wrongMethod)).toMatchObject({ limit: PER_CALLER, remaining: PER_CALLER - 2 });
    // Counted like any other: past the limit, an unknown path is a 429 as well.
    for (let i = 3; i <= PER_CALLER; i += 1) await user.get('/api/no-such-route');
    const past = await user.get('/api/no-such-route');
    expectProblem(past, 429, 'TOO_MANY_REQUESTS');
    expect(limits(past).remaining).toBe(0);
  });

  it('anonymous requests are not counted and get no headers (they are 401)', async () => {
    const anonymous = t.client();
    const answer = await anonymous.get('/api/decks');
    expectProblem(answer, 401, 'UNAUTHORIZED');
    expect(answer.headers.get('ratelimit-limit')).toBeNull();
  });
});
