import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_CHECKS } from '../server/passwords.ts';
import { expectProblem } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

// Issue 9, item 3: the limit holds under concurrency and tRPC batching, and unauthenticated
// callers cannot queue unbounded password hashing.
const LIMIT = 5;
let t: TestApp;
const password = 'the right password';
let users = 0;

beforeAll(async () => {
  // A generous per-address limit: these tests are about the per-e-mail one.
  t = await startTestApp({
    LOGIN_MAX_FAILURES_PER_EMAIL: String(LIMIT),
    LOGIN_MAX_FAILURES_PER_ADDRESS: '10000',
  });
});
afterAll(() => t.close());

async function newUser() {
  users += 1;
  const email = `victim${users}@throttle.test`;
  await t.createUser({ organization: `Throttle ${users}`, email, password });
  return email;
}

const restLogin = (email: string, pw: string) => t.client().post('/api/auth/login', { email, password: pw });

function trpcPost(path: string, body: unknown) {
  return t.client().request('POST', `/trpc/${path}`, { json: body });
}

describe('login throttling', () => {
  it('evaluates at most the limit of concurrent wrong passwords over REST; the right one then gets 429', async () => {
    const email = await newUser();
    const responses = await Promise.all(
      Array.from({ length: 3 * LIMIT }, (_, i) => restLogin(email, `wrong-${i}`)),
    );
    const statuses = responses.map((r) => r.status);
    // A 401 is an attempt whose password was checked.
    expect(statuses.filter((s) => s === 401)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2 * LIMIT);
    for (const refused of responses.filter((r) => r.status === 429)) {
      expectProblem(refused, 429, 'TOO_MANY_REQUESTS');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expectProblem(await restLogin(email, password), 429, 'TOO_MANY_REQUESTS');
  });

  it('refuses a /trpc batch holding auth.logIn with a 400 and checks none of its passwords', async () => {
    const email = await newUser();
    const calls = [...Array.from({ length: 8 }, (_, i) => `wrong-${i}`), password];
    const path = calls.map(() => 'auth.logIn').join(',');
    const input = Object.fromEntries(calls.map((pw, i) => [String(i), { email, password: pw }]));
    const response = await trpcPost(`${path}?batch=1`, input);
    expect(response.status).toBe(400);
    expect(response.headers.getSetCookie()).toEqual([]);
    expect(response.body).toHaveLength(calls.length);
    for (const item of response.body) {
      expect(item.error.message).toBe('auth.logIn cannot be batched: send it as a request of its own');
    }
    // Spelling the path differently does not get around it.
    const encoded = calls.map(() => 'auth%2ElogIn').join(',');
    expect((await trpcPost(`${encoded}?batch=1`, input)).status).toBe(400);
    // Mixed with another procedure, too.
    expect(
      (await trpcPost('auth.getCurrentUser,auth.logIn?batch=1', { 0: {}, 1: { email, password } })).status,
    ).toBe(400);
    // Nothing was counted: the right password alone still signs in.
    expect((await restLogin(email, password)).status).toBe(200);
  });

  it('evaluates at most the limit of concurrent wrong passwords over /trpc; the right one then gets 429', async () => {
    const email = await newUser();
    const responses = await Promise.all(
      Array.from({ length: 3 * LIMIT }, (_, i) => trpcPost('auth.logIn', { email, password: `wrong-${i}` })),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2 * LIMIT);
    const last = await trpcPost('auth.logIn', { email, password });
    expect(last.status).toBe(429);
    expect(last.body.error.data.code).toBe('TOO_MANY_REQUESTS');
    expect(last.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('lets a batch of one login through (it is one password check), and caps batch size', async () => {
    const email = await newUser();
    const single = await trpcPost('auth.logIn?batch=1', { 0: { email, password } });
    expect(single.status).toBe(200);
    expect(single.body[0].result.data.user.email).toBe(email);

    const user = await t.signedInClient();
    const batch = (n: number) =>
      user.request('POST', `/trpc/${Array(n).fill('decks.createDeck').join(',')}?batch=1`, {
        json: Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), { name: `Deck ${i}` }])),
      });
    const tooMany = await batch(21);
    expect(tooMany.status).toBe(400);
    expect(JSON.stringify(tooMany.body)).toContain('Batch call exceeds maximum size');
    expect((await user.get('/api/decks')).body.decks).toEqual([]);
    expect((await batch(20)).status).toBe(200);
    expect((await user.get('/api/decks')).body.decks).toHaveLength(20);
  });

  it('does not count successful sign-ins against the address', async () => {
    const strict = await startTestApp({ LOGIN_MAX_FAILURES_PER_ADDRESS: '2' });
    try {
      await strict.createUser({ organization: 'Office', email: 'office@o.test', password });
      for (let i = 0; i < 5; i++) {
        const response = await strict.client().post('/api/auth/login', { email: 'office@o.test', password });
        expect(response.status).toBe(200);
      }
    } finally {
      await strict.close();
    }
  });
});

describe('the client address behind a trusted proxy', () => {
  it('is the one the proxy appended, so a forged X-Forwarded-For does not dodge the address limit', async () => {
    const proxied = await startTestApp({ TRUST_PROXY: 'true', LOGIN_MAX_FAILURES_PER_ADDRESS: '2' });
    try {
      await proxied.createUser({ organization: 'P', email: 'p@proxy.test', password });
      const attempt = (i: number, pw: string) =>
        proxied.client().request('POST', '/api/auth/login', {
          // The client wrote the first entry; the proxy appended the address it saw.
          headers: { 'x-forwarded-for': `203.0.113.${i}, 198.51.100.7` },
          json: { email: `nobody${i}@proxy.test`, password: pw },
        });
      expect((await attempt(1, 'guess')).status).toBe(401);
      expect((await attempt(2, 'guess')).status).toBe(401);
      expectProblem(await attempt(3, 'guess'), 429, 'TOO_MANY_REQUESTS');
    } finally {
      await proxied.close();
    }
  });
});

describe('password checks', () => {
  it(`run at most ${PASSWORD_CHECKS.concurrent} at once with a bounded queue: a flood gets 503 with Retry-After`, async () => {
    // Distinct unknown e-mails: no per-e-mail limit applies, each one costs a (decoy) check.
    const flood = 6 * (PASSWORD_CHECKS.concurrent + PASSWORD_CHECKS.waiting);
    const responses = await Promise.all(
      Array.from({ length: flood }, (_, i) => restLogin(`nobody${i}@flood.test`, 'guess')),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.every((s) => s === 401 || s === 503)).toBe(true);
    const busy = responses.filter((r) => r.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    for (const response of busy) {
      expectProblem(response, 503, 'SERVICE_UNAVAILABLE');
      expect(response.headers.get('retry-after')).toBe('1');
    }
    // Once the flood is over, sign-in works again.
    const email = await newUser();
    expect((await restLogin(email, password)).status).toBe(200);
  });
});
