import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../app/config.ts';
import { PASSWORD_CHECKS } from '../domain/auth/passwords.ts';
import { expectProblem } from './helpers/http-client.ts';
import { runScript } from './helpers/processes.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

// Issue 9, item 3: the limit holds under concurrency and tRPC batching, and unauthenticated
// callers cannot queue unbounded password hashing.
const LIMIT = 5;
let t: TestApp;
const password = 'the right password';
let users = 0;

beforeAll(async () => {
  // A generous per-address limit: these tests are about the per-e-mail-and-address one (all
  // their requests come from one address).
  t = await startTestApp({
    LOGIN_MAX_FAILURES_PER_EMAIL_AND_ADDRESS: String(LIMIT),
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

describe('TRUST_PROXY on a port anyone can reach (issue 38, finding 5)', () => {
  const env = (extra: Record<string, string>) => ({ NODE_ENV: 'production', TRUST_PROXY: 'true', ...extra });

  it('is refused with HOST on every address, IPv4 or IPv6, unless the operator says the network is private', () => {
    for (const HOST of [undefined, '0.0.0.0', '::', '[::]', '::ffff:0.0.0.0']) {
      const refusal = (() => {
        try {
          loadConfig(env(HOST === undefined ? {} : { HOST }));
        } catch (error) {
          return error;
        }
      })();
      expect(refusal, String(HOST)).toBeInstanceOf(ConfigError);
      expect((refusal as Error).message).toContain('\n  - TRUST_PROXY: trusts X-Forwarded-For');
      expect((refusal as Error).message).toContain('TRUST_PROXY_ON_EVERY_ADDRESS=true');
    }
    expect(loadConfig(env({ HOST: '127.0.0.1' })).trustProxy).toBe(true);
    expect(loadConfig(env({ HOST: '10.0.0.5' })).trustProxy).toBe(true);
    expect(loadConfig(env({ TRUST_PROXY_ON_EVERY_ADDRESS: 'true' })).trustProxy).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).trustProxy).toBe(false);
  });

  it('stops npm start before it listens, saying why', async () => {
    const started = await runScript('app/main.ts', [], { TRUST_PROXY: 'true', HOST: '0.0.0.0', PORT: '0' });
    expect(started.code).toBe(1);
    expect(started.stderr).toContain('TRUST_PROXY: trusts X-Forwarded-For');
    expect(started.stderr).toContain('HOST=0.0.0.0 lets anyone reach it');
    expect(started.stdout).not.toMatch(/listening/);
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

describe('whom failed sign-ins hold back (issue 29, finding 8)', () => {
  const PER_EMAIL_AND_ADDRESS = 4;
  const BACKOFF_AFTER = 5;
  const WINDOW_SECONDS = 900;
  let proxied: TestApp;
  let db: pg.Client;
  let accounts = 0;

  beforeAll(async () => {
    // Behind a trusted proxy: each request says which client address it comes from.
    proxied = await startTestApp({
      TRUST_PROXY: 'true',
      LOGIN_MAX_FAILURES_PER_EMAIL_AND_ADDRESS: String(PER_EMAIL_AND_ADDRESS),
      LOGIN_BACKOFF_AFTER_FAILURES_PER_EMAIL: String(BACKOFF_AFTER),
      LOGIN_MAX_FAILURES_PER_ADDRESS: '50',
      LOGIN_THROTTLE_WINDOW_SECONDS: String(WINDOW_SECONDS),
    });
    db = new pg.Client({ connectionString: proxied.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await proxied.close();
  });

  async function account() {
    accounts += 1;
    const email = `owner${accounts}@addresses.test`;
    await proxied.createUser({ organization: `Addresses ${accounts}`, email, password });
    return email;
  }

  const from = (address: string, email: string, pw: string) =>
    proxied.client().request('POST', '/api/auth/login', {
      headers: { 'x-forwarded-for': address },
      json: { email, password: pw },
    });

  it('the former LOGIN_MAX_FAILURES_PER_EMAIL (it locked the account everywhere) stops the start, naming what replaced it', () => {
    const attempt = () => loadConfig({ NODE_ENV: 'test', LOGIN_MAX_FAILURES_PER_EMAIL: '5' });
    expect(attempt).toThrow(ConfigError);
    // Plain strings: a `.*` between two long literals is slow for the ReDoS check to read.
    expect(attempt).toThrow('LOGIN_MAX_FAILURES_PER_EMAIL_AND_ADDRESS');
    expect(attempt).toThrow('LOGIN_BACKOFF_AFTER_FAILURES_PER_EMAIL');
  });

  it('wrong passwords from one address refuse that address for that account only: the right one from another signs in', async () => {
    const email = await account();
    for (let i = 0; i < PER_EMAIL_AND_ADDRESS; i++) {
      expect((await from('198.51.100.1', email, `wrong-${i}`)).status).toBe(401);
    }
    const refused = await from('198.51.100.1', email, password);
    expectProblem(refused, 429, 'TOO_MANY_REQUESTS');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Knowing the e-mail is not enough to lock its owner out.
    expect((await from('198.51.100.2', email, password)).status).toBe(200);
    // …and the address may still sign in to another account.
    expect((await from('198.51.100.1', await account(), password)).status).toBe(200);
  });

  it('failures from many addresses slow the account: an address that failed waits, doubling; one that has not is checked at once', async () => {
    const email = await account();
    // Far past the threshold, so that the wait (2^6 s here) outlasts these requests on any machine.
    for (let i = 1; i <= BACKOFF_AFTER + 6; i++) {
      expect((await from(`203.0.113.${i}`, email, 'guess')).status).toBe(401);
    }
    // Each address failed once (under its own limit), but the account as a whole is under attack:
    // an address that has failed for it must wait before its next attempt, right password or not.
    const slowed = await from('203.0.113.1', email, password);
    expectProblem(slowed, 429, 'TOO_MANY_REQUESTS');
    const firstWait = Number(slowed.headers.get('retry-after'));
    expect(firstWait).toBeGreaterThanOrEqual(1);
    // Trying again before then only makes the wait longer.
    const again = await from('203.0.113.1', email, password);
    expectProblem(again, 429, 'TOO_MANY_REQUESTS');
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(firstWait);
    expect(Number(again.headers.get('retry-after'))).toBeLessThanOrEqual(WINDOW_SECONDS);

    // An address that has not failed for the account is never refused for the others' failures.
    expect((await from('203.0.113.100', email, 'guess')).status).toBe(401);
    expect((await from('203.0.113.101', email, password)).status).toBe(200);

    // Slowed, not locked: once the longest wait has passed (the database's clock moved on), the
    // address that failed signs in with the right password.
    await db.query(
      `update login_throttle set last_failure_at = last_failure_at - make_interval(secs => $1),
                                 previous_failure_at = previous_failure_at - make_interval(secs => $1)`,
      [WINDOW_SECONDS],
    );
    expect((await from('203.0.113.1', email, password)).status).toBe(200);
  });
});

describe('expired throttle counts (issue 29, finding 11)', () => {
  it('are removed by the background sweep; those whose window runs still are kept', async () => {
    const swept = await startTestApp({
      LOGIN_THROTTLE_SWEEP_INTERVAL_MS: '50',
      LOGIN_THROTTLE_WINDOW_SECONDS: '600',
    });
    const db = new pg.Client({ connectionString: swept.databaseUrl });
    await db.connect();
    try {
      const rowsNaming = async (email: string) =>
        (await db.query('select key from login_throttle where strpos(key, $1) > 0', [email])).rows;
      for (const email of ['gone@sweep.test', 'kept@sweep.test']) {
        expect((await swept.client().post('/api/auth/login', { email, password: 'guess' })).status).toBe(401);
        expect((await rowsNaming(email)).length).toBeGreaterThan(0);
      }
      // One e-mail's window ended a second ago (the address's, shared by both, runs on).
      await db.query(
        "update login_throttle set window_started_at = now() - interval '601 seconds' where strpos(key, $1) > 0",
        ['gone@sweep.test'],
      );
      await eventually(async () => (await rowsNaming('gone@sweep.test')).length === 0);
      expect((await rowsNaming('kept@sweep.test')).length).toBeGreaterThan(0);
      expect((await rowsNaming('127.0.0.1')).length).toBeGreaterThan(0);
    } finally {
      await db.end();
      await swept.close();
    }
  });
});
