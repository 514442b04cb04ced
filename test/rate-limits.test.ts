import { Writable } from 'node:stream';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pooledQueries } from '../domain/prepared-statements.ts';
import { createRateLimiter } from '../rest/rate-limit.ts';
import { png } from './helpers/files.ts';
import { freePort } from './helpers/free-port.ts';
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

  it('instances on one database count together: the limit holds across them', async () => {
    const second = await startTestApp(
      { RATE_LIMIT_PER_MINUTE: String(PER_CALLER), HEAVY_LIMIT_PER_MINUTE: String(HEAVY) },
      { databaseUrl: t.databaseUrl },
    );
    try {
      const user = await t.signedInClient();
      const elsewhere = second.client();
      for (const [name, value] of user.cookies) elsewhere.cookies.set(name, value);
      // Alternating between the instances: each answer's remainder counts both.
      for (let i = 1; i <= PER_CALLER; i += 1) {
        const answer = await (i % 2 ? user : elsewhere).get('/api/decks');
        expect(answer.status).toBe(200);
        expect(limits(answer).remaining).toBe(PER_CALLER - i);
      }
      expectProblem(await user.get('/api/decks'), 429, 'TOO_MANY_REQUESTS');
      expectProblem(await elsewhere.get('/api/decks'), 429, 'TOO_MANY_REQUESTS');
      // The heavy budget too: an owner's uploads on either instance draw on one organization's count.
      const owner = await t.signedInClient();
      const ownerElsewhere = second.client();
      for (const [name, value] of owner.cookies) ownerElsewhere.cookies.set(name, value);
      for (let i = 0; i < HEAVY; i += 1)
        expect((await uploadImage(i % 2 ? ownerElsewhere : owner)).status).toBe(201);
      expectProblem(await uploadImage(ownerElsewhere), 429, 'TOO_MANY_REQUESTS');
      // All at once on both instances (counted in batches): exactly the limit passes, each
      // passing answer with its own remainder.
      const racer = await t.signedInClient();
      const racerElsewhere = second.client();
      for (const [name, value] of racer.cookies) racerElsewhere.cookies.set(name, value);
      const answers = await Promise.all(
        Array.from({ length: 4 * PER_CALLER }, (_, i) => (i % 2 ? racer : racerElsewhere).get('/api/decks')),
      );
      const passed = answers.filter((answer) => answer.status === 200);
      expect(passed).toHaveLength(PER_CALLER);
      expect(passed.map((answer) => limits(answer).remaining).sort((a, b) => a - b)).toEqual(
        Array.from({ length: PER_CALLER }, (_, i) => i),
      );
      expect(answers.filter((answer) => answer.status === 429)).toHaveLength(3 * PER_CALLER);
    } finally {
      await second.close();
    }
  });

  it('RATE_LIMIT_STORE=memory: each instance counts for itself (one instance only)', async () => {
    const env = { RATE_LIMIT_PER_MINUTE: String(PER_CALLER), RATE_LIMIT_STORE: 'memory' };
    const first = await startTestApp(env);
    const second = await startTestApp(env, { databaseUrl: first.databaseUrl });
    try {
      const user = await first.signedInClient();
      const elsewhere = second.client();
      for (const [name, value] of user.cookies) elsewhere.cookies.set(name, value);
      for (let i = 0; i < PER_CALLER; i += 1) expect((await user.get('/api/decks')).status).toBe(200);
      expectProblem(await user.get('/api/decks'), 429, 'TOO_MANY_REQUESTS');
      const there = await elsewhere.get('/api/decks');
      expect(there.status).toBe(200);
      expect(limits(there).remaining).toBe(PER_CALLER - 1);
    } finally {
      await second.close();
      await first.close();
    }
  });

  it('a shared store that cannot be reached: the instance counts alone, the limit still holds, one warning', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    // A real pool on a port where nothing listens: every statement fails to connect.
    const pool = new pg.Pool({
      connectionString: `postgres://nobody@127.0.0.1:${await freePort()}/none`,
      connectionTimeoutMillis: 500,
    });
    try {
      const limiter = createRateLimiter(
        { perCallerPerMinute: 3, heavyPerOrganizationPerMinute: 1, store: 'postgres' },
        { queries: async () => pooledQueries(pool), logger },
      );
      const answers = [];
      for (let i = 0; i < 4; i += 1) answers.push(await limiter.consume('user:x', 'org', 1, 0));
      expect(answers.map((a) => a.refusedBy ?? 'passed')).toEqual(['passed', 'passed', 'passed', 'caller']);
      expect(answers.map((a) => a.remaining)).toEqual([2, 1, 0, 0]);
      const warnings = lines.map((line) => JSON.parse(line)).filter((entry) => entry.level === 40);
      expect(warnings).toHaveLength(1);
      expect(warnings[0].msg).toContain('this instance counts alone');
    } finally {
      await pool.end();
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
