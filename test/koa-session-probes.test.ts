import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import createKoaSession from 'koa-session';
import { afterEach, describe, expect, it } from 'vitest';

// Probes of koa-session's OWN behaviour, configured as its options allow (api.md, "Sessions
// (correction)"; docs/decisions/045-sessions-with-koa-session.md). Each `it.fails` states a rule and
// fails with the library as configured: that is why the service keeps the renewal in its store's
// `get` and writes the cookie's value through `externalKey.set` (rest/request-context.ts).
// Should a later koa-session meet a rule, its probe passes, vitest reports it, and the
// hand-written part can go.

const HOUR_MS = 3600 * 1000;
const MAX_AGE_MS = 24 * HOUR_MS;

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A store that keeps only the SHA-256 of the key, and counts koa-session's writes. */
function hashingStore() {
  const rows = new Map<string, Record<string, unknown>>();
  const hash = (key: string) => createHash('sha256').update(key).digest('hex');
  const store = {
    sets: 0,
    /** What `get` answers for a stored key (the row's own data, or a row renewed hours ago). */
    shape: (data: Record<string, unknown>) => data,
    async get(key: string) {
      const row = rows.get(hash(key));
      return row ? store.shape(row) : null;
    },
    async set(key: string, data: Record<string, unknown>) {
      store.sets += 1;
      rows.set(hash(key), data);
    },
    async destroy(key: string) {
      rows.delete(hash(key));
    },
  };
  return store;
}

/** Koa with koa-session (`options` on top of the service's choices); POST /login signs in. */
async function appWith(options: Record<string, unknown>) {
  const app = new Koa();
  app.use(
    createKoaSession(
      {
        key: 'session',
        maxAge: MAX_AGE_MS,
        signed: false,
        httpOnly: true,
        sameSite: 'lax',
        ...options,
      } as never,
      app,
    ),
  );
  app.use(async (ctx) => {
    const session = (ctx as unknown as { session: Record<string, unknown> & { regenerate(): Promise<void> } })
      .session;
    if (ctx.method === 'POST' && ctx.path === '/login') {
      session.userId = 'u1';
      await session.regenerate();
    }
    ctx.body = { userId: session.userId ?? null };
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server!.once('listening', resolve));
  const url = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
  const login = await fetch(`${url}/login`, { method: 'POST' });
  const cookie = login.headers.getSetCookie().find((c) => c.startsWith('session='))!;
  const token = cookie.slice('session='.length, cookie.indexOf(';'));
  const get = () => fetch(`${url}/`, { headers: { cookie: `session=${token}` } });
  return { login, cookie, token, get };
}

describe('koa-session, as configured with its own options', () => {
  it.fails('renews at most once an hour with `rolling: true` (its sliding option)', async () => {
    const store = hashingStore();
    const { get } = await appWith({ store, rolling: true });
    const setsAtSignIn = store.sets;
    // Five requests within the same minute: api.md allows no renewal before the hour is over.
    const responses = [];
    for (let i = 0; i < 5; i++) responses.push(await get());
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    // Fails: every response re-sends the cookie and every request writes the store.
    expect(responses.flatMap((r) => r.headers.getSetCookie())).toEqual([]);
    expect(store.sets - setsAtSignIn).toBe(0);
  });

  it.fails('renews a session whose last renewal is an hour old with `renew: true`', async () => {
    const store = hashingStore();
    // The row as the store would answer it two hours after its last renewal.
    store.shape = (data) => ({
      ...data,
      _expire: Date.now() + MAX_AGE_MS - 2 * HOUR_MS,
      _maxAge: MAX_AGE_MS,
    });
    const { get } = await appWith({ store, renew: true });
    const setsAtSignIn = store.sets;
    const response = await get();
    expect(response.status).toBe(200);
    // Fails: `renew` only acts in the last half of the lifetime (here after 12 hours), so the
    // session slides only twice a day, not once the hour is over.
    expect(response.headers.getSetCookie()).toHaveLength(1);
    expect(store.sets - setsAtSignIn).toBe(1);
  });

  it.fails("writes the cookie's lifetime as Max-Age", async () => {
    const { cookie } = await appWith({ store: hashingStore(), genid: () => 'a'.repeat(43) });
    // Fails: Koa's `cookies` module writes `expires=<date>` only (the browser's clock decides).
    expect(cookie).toMatch(new RegExp(`;\\s*max-age=${MAX_AGE_MS / 1000}(;|$)`, 'i'));
  });
});

describe('koa-session with the service’s store and externalKey (what it does meet)', () => {
  it('keeps only the hash, gives a new key at sign-in and sends nothing without a change', async () => {
    const store = hashingStore();
    const { token, get, login } = await appWith({ store, genid: () => 'b'.repeat(43) });
    expect(login.status).toBe(200);
    expect(token).toBe('b'.repeat(43));
    const response = await get();
    expect(await response.json()).toEqual({ userId: 'u1' });
    expect(response.headers.getSetCookie()).toEqual([]);
    // Sign-in writes twice: `regenerate` saves, and the commit at the response's end saves the
    // same new key again (the service's store writes its row once: the second `set` is of the
    // token the request already holds, rest/request-context.ts).
    expect(store.sets).toBe(2);
  });
});
