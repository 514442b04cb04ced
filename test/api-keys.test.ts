import { randomBytes, randomUUID } from 'node:crypto';
import { createTRPCClient, httpLink } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../domain/auth/callers.ts';
import type { AppRouter } from '../routers/app-router.ts';
import { png } from './helpers/files.ts';
import { expectProblem, type HttpClient, type HttpResponse } from './helpers/http-client.ts';
import { apartFromRateLimitCounts, statementsDuring } from './helpers/statements.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/**
 * API keys (api.md, "Who may do what"): owners create, list and revoke them; a key is a caller
 * of its own on every /api route and on /trpc, answered as the key even beside a cookie; a bad
 * key is a 401 exactly like a bad cookie; its secret is shown once and found nowhere else.
 */
let t: TestApp;
let owner: Awaited<ReturnType<TestApp['signedInClient']>>;
let other: Awaited<ReturnType<TestApp['signedInClient']>>;

beforeAll(async () => {
  // Every log line the app can write, so that the secrets test reads them all.
  t = await startTestApp({ LOG_LEVEL: 'trace' });
  owner = await t.signedInClient('Key Org');
  other = await t.signedInClient('Other Key Org');
});
afterAll(() => t.close());

type Access = 'read' | 'write' | 'admin';

async function createKey(by: HttpClient, access: Access = 'write', extra: Record<string, unknown> = {}) {
  const response = await by.post('/api/api-keys', {
    name: `key ${randomBytes(3).toString('hex')}`,
    access,
    ...extra,
  });
  expect(response.status, response.text).toBe(201);
  return response.body as {
    apiKey: { id: string; name: string; prefix: string; lastUsedAt: string | null };
    secret: string;
  };
}

/** A request with `Authorization: Bearer …` (and the client's cookies, if it is given one). */
function withKey(secret: string, method: string, path: string, json?: unknown, client = t.client()) {
  return client.request(method, path, { json, headers: { authorization: `Bearer ${secret}` } });
}

async function sql<R = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<R[]> {
  return t.app.database.orm.em.getConnection().execute(text, values) as Promise<R[]>;
}

const counts = async () =>
  (
    await sql<{ events: number; keys: number; decks: number }>(
      'select (select count(*)::int from event) as events, (select count(*)::int from api_key) as keys, (select count(*)::int from deck) as decks',
    )
  )[0]!;

/** The body of a 401 for a bad cookie: every bad key must get exactly this. */
async function badCookieAnswer(path = '/api/decks'): Promise<HttpResponse> {
  const client = t.client();
  client.cookies.set('session', randomBytes(32).toString('base64url'));
  return client.get(path);
}

function trpcWithKey(secret: string) {
  return createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${t.url}/trpc`, headers: { authorization: `Bearer ${secret}` } })],
  });
}

describe('POST /api/api-keys', () => {
  it('answers 201 with the key and its secret, shown only here; the key works on /api', async () => {
    const before = Date.now();
    const response = await owner.post('/api/api-keys', { name: 'CI', access: 'write' });
    expect(response.status, response.text).toBe(201);
    const { apiKey, secret } = response.body;
    expect(secret).toMatch(/^dk_[A-Za-z0-9_-]{43}$/);
    expect(apiKey).toEqual({
      id: expect.any(String),
      name: 'CI',
      access: 'write',
      prefix: secret.slice(3, 11),
      createdAt: expect.any(String),
      createdBy: owner.userId,
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(Date.parse(apiKey.createdAt)).toBeGreaterThanOrEqual(before - 1000);

    const me = await withKey(secret, 'GET', '/api/auth/me');
    expect(me.status, me.text).toBe(200);
    expect(me.body).toEqual({
      user: null,
      apiKey: { id: apiKey.id, name: 'CI', access: 'write' },
      organization: { id: owner.organizationId, name: 'Key Org' },
    });
    const deck = await withKey(secret, 'POST', '/api/decks', { name: 'Made by a key' });
    expect(deck.status, deck.text).toBe(201);
    expect(deck.body.organizationId).toBe(owner.organizationId);
    expect((await owner.get(`/api/decks/${deck.body.id}`)).status).toBe(200);
  });

  it('works on /trpc too, with a typed client', async () => {
    const { apiKey, secret } = await createKey(owner, 'write');
    const trpc = trpcWithKey(secret);
    const me = await trpc.auth.getCurrentUser.query({});
    expect(me).toMatchObject({ user: null, apiKey: { id: apiKey.id } });
    const deck = await trpc.decks.createDeck.mutate({ name: 'Typed by a key' });
    expect(deck.organizationId).toBe(owner.organizationId);
  });

  it('keeps only the SHA-256 of the secret', async () => {
    const { apiKey, secret } = await createKey(owner);
    const [row] = await sql<Record<string, unknown>>('select * from api_key where id = ?', [apiKey.id]);
    expect(row!.secret_hash).toBe(hashSecret(secret));
    expect(JSON.stringify(row)).not.toContain(secret.slice(3));
  });

  it('validates its body exactly, at and past the limits, and a refused request writes nothing', async () => {
    const before = await counts();
    const name200 = 'n'.repeat(200);
    const bad: [unknown, string][] = [
      [{ name: 'x', access: 'owner' }, 'access'],
      [{ name: '', access: 'read' }, 'name'],
      [{ name: '   ', access: 'read' }, 'name'],
      [{ name: `${name200}x`, access: 'read' }, 'name'],
      [{ access: 'read' }, 'name'],
      [{ name: 'x' }, 'access'],
      [{ name: 'x', access: 'read', expiresAt: new Date(Date.now() - 60_000).toISOString() }, 'expiresAt'],
      [{ name: 'x', access: 'read', expiresAt: 'tomorrow' }, 'expiresAt'],
      [{ name: 'x', access: 'read', secret: 'dk_mine' }, 'secret'],
      [{ name: 'a\u0000b', access: 'read' }, 'name'],
    ];
    for (const [body, field] of bad) {
      const problem = expectProblem(await owner.post('/api/api-keys', body), 400, 'BAD_REQUEST');
      expect(
        problem.issues?.map((i) => i.path[0]),
        JSON.stringify(body),
      ).toContain(field);
    }
    expect(await counts()).toEqual(before);

    const atLimit = await owner.post('/api/api-keys', { name: name200, access: 'read' });
    expect(atLimit.status).toBe(201);
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const expiring = await owner.post('/api/api-keys', { name: 'soon', access: 'read', expiresAt });
    expect(expiring.status).toBe(201);
    expect(expiring.body.apiKey.expiresAt).toBe(expiresAt);
  });
});

describe('GET /api/api-keys', () => {
  it('lists the organization’s keys with their prefix, never a secret or hash', async () => {
    const { apiKey, secret } = await createKey(owner, 'read');
    const otherKey = await createKey(other, 'read');
    const response = await owner.get('/api/api-keys');
    expect(response.status).toBe(200);
    const listed = response.body.apiKeys as { id: string; prefix: string }[];
    expect(listed.find((k) => k.id === apiKey.id)).toEqual(apiKey);
    expect(listed.some((k) => k.id === otherKey.apiKey.id)).toBe(false);
    expect(response.text).not.toContain(secret.slice(3));
    expect(response.text).not.toContain(hashSecret(secret));
    expect(response.text).not.toMatch(/secret/i);
  });
});

describe('DELETE /api/api-keys/{apiKeyId}', () => {
  it('revokes the key at once; a second revoke changes nothing', async () => {
    const { apiKey, secret } = await createKey(owner);
    expect((await withKey(secret, 'GET', '/api/decks')).status).toBe(200);
    const revoked = await owner.delete(`/api/api-keys/${apiKey.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ success: true });
    const refused = await withKey(secret, 'GET', '/api/decks');
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual((await badCookieAnswer()).body);

    const listed = (await owner.get('/api/api-keys')).body.apiKeys.find(
      (k: { id: string }) => k.id === apiKey.id,
    );
    expect(listed.revokedAt).toEqual(expect.any(String));
    expect(await owner.delete(`/api/api-keys/${apiKey.id}`)).toMatchObject({ status: 200 });
    expect(await t.eventTypes(apiKey.id)).toEqual(['api_key.created', 'api_key.revoked']);
  });

  it('revokes once under concurrent requests (one event)', async () => {
    const { apiKey } = await createKey(owner);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => owner.delete(`/api/api-keys/${apiKey.id}`)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(await t.eventTypes(apiKey.id)).toEqual(['api_key.created', 'api_key.revoked']);
  });

  it('answers another organization’s key exactly like a missing one, and leaves it working', async () => {
    const theirs = await createKey(other);
    const before = await counts();
    const foreign = await owner.delete(`/api/api-keys/${theirs.apiKey.id}`);
    const missingId = randomUUID();
    const missing = await owner.delete(`/api/api-keys/${missingId}`);
    expectProblem(foreign, 404, 'NOT_FOUND');
    expectProblem(missing, 404, 'NOT_FOUND');
    expect(foreign.text.replace(theirs.apiKey.id, '<id>')).toBe(missing.text.replace(missingId, '<id>'));
    expect(await counts()).toEqual(before);
    expect((await withKey(theirs.secret, 'GET', '/api/decks')).status).toBe(200);
    expectProblem(await owner.delete('/api/api-keys/not-a-uuid'), 400, 'BAD_REQUEST');
  });
});

describe('who may manage keys', () => {
  it('only owners: members, admins and every API key get 403, and nothing is written', async () => {
    const { apiKey } = await createKey(owner);
    const member = await t.signedInClient('Key Org', 'member');
    const admin = await t.signedInClient('Key Org', 'admin');
    const adminKey = (await createKey(owner, 'admin')).secret;
    const before = await counts();
    const callers: [string, (m: string, p: string, b?: unknown) => Promise<HttpResponse>][] = [
      ['member', (m, p, b) => member.request(m, p, { json: b })],
      ['admin', (m, p, b) => admin.request(m, p, { json: b })],
      ['admin key', (m, p, b) => withKey(adminKey, m, p, b)],
    ];
    for (const [who, call] of callers) {
      for (const [method, path, body] of [
        ['POST', '/api/api-keys', { name: 'x', access: 'read' }],
        ['GET', '/api/api-keys', undefined],
        ['DELETE', `/api/api-keys/${apiKey.id}`, undefined],
      ] as const) {
        const problem = expectProblem(await call(method, path, body), 403, 'FORBIDDEN');
        expect(problem.detail, `${who} ${method} ${path}`).toMatch(/owner access/);
      }
    }
    expect(await counts()).toEqual(before);
  });

  it('a read key reads but changes nothing (403), uploads included', async () => {
    const read = (await createKey(owner, 'read')).secret;
    expect((await withKey(read, 'GET', '/api/decks')).status).toBe(200);
    const before = await counts();
    const refused = expectProblem(
      await withKey(read, 'POST', '/api/decks', { name: 'no' }),
      403,
      'FORBIDDEN',
    );
    expect(refused.detail).toMatch(/write access/);
    // An upload is refused before its body is read.
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(png(2, 2))], { type: 'image/png' }), 'a.png');
    const upload = await t.client().request('POST', '/api/images', {
      body: form,
      headers: { authorization: `Bearer ${read}` },
    });
    expectProblem(upload, 403, 'FORBIDDEN');
    expect(await counts()).toEqual(before);
    expect((await sql('select id from image where organization_id = ?', [owner.organizationId])).length).toBe(
      0,
    );
  });
});

describe('authenticating with a key', () => {
  it('answers a malformed, unknown, revoked or expired key with the body of a bad cookie', async () => {
    const expected = await badCookieAnswer();
    expectProblem(expected, 401, 'UNAUTHORIZED');
    const revoked = await createKey(owner);
    await owner.delete(`/api/api-keys/${revoked.apiKey.id}`);
    const expired = await createKey(owner, 'write', {
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect((await withKey(expired.secret, 'GET', '/api/decks')).status).toBe(200);
    // Time passes (the key's hour is over): moved in the database rather than waited for.
    await sql(`update api_key set expires_at = now() - interval '1 second' where id = ?`, [
      expired.apiKey.id,
    ]);

    const headers = [
      'Bearer dk_short',
      `Bearer dk_${randomBytes(32).toString('base64url')}`,
      `Bearer ${revoked.secret}`,
      `Bearer ${expired.secret}`,
      `Basic ${Buffer.from('a:b').toString('base64')}`,
      'Bearer',
      `Bearer ${revoked.secret.slice(0, -1)}`,
      `Bearer ${revoked.secret}x`,
    ];
    for (const authorization of headers) {
      const response = await t.client().request('GET', '/api/decks', { headers: { authorization } });
      expect(response.status, authorization).toBe(401);
      expect(response.body, authorization).toEqual(expected.body);
      expect(response.headers.get('content-type')).toBe(expected.headers.get('content-type'));
    }
    // /trpc answers alike for a bad key and a bad cookie.
    const badTrpc = await t.client().request('GET', '/trpc/decks.listDecks?input=%7B%7D', {
      headers: { authorization: `Bearer ${revoked.secret}` },
    });
    expect(badTrpc.status).toBe(401);
  });

  it('answers as the key when a cookie comes too; a bad key with a valid cookie is a 401', async () => {
    const { apiKey, secret } = await createKey(other, 'read');
    const me = await withKey(secret, 'GET', '/api/auth/me', undefined, owner);
    expect(me.body).toMatchObject({
      user: null,
      apiKey: { id: apiKey.id },
      organization: { id: other.organizationId },
    });
    const bad = await withKey(
      `dk_${randomBytes(32).toString('base64url')}`,
      'GET',
      '/api/auth/me',
      undefined,
      owner,
    );
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual((await badCookieAnswer('/api/auth/me')).body);
    // The cookie alone still works: it was not touched.
    expect((await owner.get('/api/auth/me')).body.user.id).toBe(owner.userId);
  });

  it('gets 404 for another organization’s deck, like a missing one', async () => {
    const deck = await owner.post('/api/decks', { name: 'Not theirs' });
    const { secret } = await createKey(other, 'write');
    const before = await counts();
    const foreign = await withKey(secret, 'PATCH', `/api/decks/${deck.body.id}`, { name: 'taken' });
    expectProblem(foreign, 404, 'NOT_FOUND');
    expectProblem(await withKey(secret, 'GET', `/api/decks/${deck.body.id}`), 404, 'NOT_FOUND');
    expect(await counts()).toEqual(before);
    expect((await owner.get(`/api/decks/${deck.body.id}`)).body.name).toBe('Not theirs');
  });

  it('sets lastUsedAt at first use and writes it at most once a minute', async () => {
    const { apiKey, secret } = await createKey(owner);
    const lastUsed = async () =>
      ((await owner.get('/api/api-keys')).body.apiKeys as { id: string; lastUsedAt: string | null }[]).find(
        (k) => k.id === apiKey.id,
      )!.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    // Every write of last_used_at, counted by PostgreSQL itself (a trigger on this test's database).
    await sql('create table key_touch (api_key_id uuid not null)');
    await sql(`create function count_key_touch() returns trigger language plpgsql as $$
                 begin insert into key_touch values (new.id); return new; end $$`);
    await sql(`create trigger key_touched after update of last_used_at on api_key for each row
                 when (old.last_used_at is distinct from new.last_used_at) execute function count_key_touch()`);
    const touches = async () =>
      (
        await sql<{ n: number }>('select count(*)::int as n from key_touch where api_key_id = ?', [apiKey.id])
      )[0]!.n;
    try {
      // Twelve concurrent first uses write it once.
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => withKey(secret, 'GET', '/api/decks')),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(12).fill(200));
      const first = await lastUsed();
      expect(first).toEqual(expect.any(String));
      expect(await touches()).toBe(1);
      await Promise.all(Array.from({ length: 6 }, () => withKey(secret, 'GET', '/api/decks')));
      expect(await lastUsed()).toBe(first);
      expect(await touches()).toBe(1);
      // A minute later (moved in the database, not waited for) the next uses write it once again.
      await sql(`update api_key set last_used_at = last_used_at - interval '61 seconds' where id = ?`, [
        apiKey.id,
      ]);
      const aged = await lastUsed();
      await Promise.all(Array.from({ length: 6 }, () => withKey(secret, 'GET', '/api/decks')));
      const second = await lastUsed();
      expect(Date.parse(second!)).toBeGreaterThan(Date.parse(aged!));
      expect(await touches()).toBe(3); // the first write, the test's own ageing, and one more
    } finally {
      await sql('drop trigger key_touched on api_key');
    }
  });

  it('costs one statement per request: the prepared key lookup (with its lastUsedAt update), besides the shared rate limit’s count', async () => {
    const quiet = await startTestApp({ NOTIFICATIONS_ENABLED: 'false', GENERATION_ENABLED: 'false' });
    try {
      const keyOwner = await quiet.signedInClient();
      const { secret } = (await keyOwner.post('/api/api-keys', { name: 'k', access: 'read' })).body;
      const me = () =>
        quiet.client().request('GET', '/api/auth/me', { headers: { authorization: `Bearer ${secret}` } });
      expect((await me()).status).toBe(200);
      // A minute old: the first request counted also writes lastUsedAt, in the same statement.
      const db = quiet.app.database.orm.em.getConnection();
      await db.execute(`update api_key set last_used_at = now() - interval '2 minutes'`);
      const statements = await statementsDuring(quiet, async () => {
        for (let i = 0; i < 5; i++) expect((await me()).status).toBe(200);
      });
      const [row] = await db.execute<{ recent: boolean }[]>(
        `select last_used_at > now() - interval '1 minute' as recent from api_key`,
      );
      expect(row!.recent).toBe(true);
      const { own, counts } = apartFromRateLimitCounts(statements);
      expect(own).toHaveLength(5);
      for (const statement of own) expect(statement).toMatch(/^authenticate-api-key: with found as/);
      expect(counts.length).toBeGreaterThanOrEqual(1);
      expect(counts.length).toBeLessThanOrEqual(5);
    } finally {
      await quiet.close();
    }
  });
  it('a key cannot log out (it has no session): 403, and a cookie sent beside it stays signed in', async () => {
    const { secret } = await createKey(owner, 'read');
    const user = await t.signedInClient();
    const refused = await withKey(secret, 'POST', '/api/auth/logout', {}, user);
    expectProblem(refused, 403, 'FORBIDDEN');
    expect(refused.headers.get('set-cookie')).toBeNull();
    expect((await user.get('/api/auth/me')).status).toBe(200);
  });
});

describe('secrets and actors', () => {
  it('never shows a secret or its hash in logs, events or error bodies', async () => {
    const { apiKey, secret } = await createKey(owner, 'read');
    const answers = [
      await withKey(secret, 'POST', '/api/decks', { name: 'refused' }),
      await withKey(secret, 'GET', '/api/api-keys'),
      await withKey(`${secret}x`, 'GET', '/api/decks'),
      await withKey(secret, 'GET', '/api/no-such-route'),
      await owner.delete(`/api/api-keys/${apiKey.id}`),
      await withKey(secret, 'GET', '/api/decks'),
    ];
    const events = await sql<{ payload: unknown }>('select payload from event where aggregate_id = ?', [
      apiKey.id,
    ]);
    expect(events).toHaveLength(2);
    const hash = hashSecret(secret);
    expect(t.logs()).toContain('request started'); // debug lines were written and are read here
    for (const text of [t.logs(), JSON.stringify(events), ...answers.map((a) => a.text)]) {
      expect(text).not.toContain(secret.slice(3));
      expect(text).not.toContain(hash);
    }
  });

  it('records the actor on every event: the user, or the key', async () => {
    const { apiKey, secret } = await createKey(owner);
    const byUser = (await owner.post('/api/decks', { name: 'by user' })).body.id;
    const byKey = (await withKey(secret, 'POST', '/api/decks', { name: 'by key' })).body.id;
    await withKey(secret, 'POST', `/api/decks/${byKey}/slides`, { title: 'k' });
    const actors = async (aggregateId: string) =>
      (
        await sql<{ actor: unknown }>("select payload->'actor' as actor from event where aggregate_id = ?", [
          aggregateId,
        ])
      ).map((r) => r.actor);
    expect(await actors(byUser)).toEqual([{ type: 'user', id: owner.userId }]);
    expect(await actors(byKey)).toEqual([{ type: 'api_key', id: apiKey.id }]);
    expect(await actors(apiKey.id)).toEqual([{ type: 'user', id: owner.userId }]);
    const [slide] = await sql<{ actor: unknown }>(
      "select payload->'actor' as actor from event where deck_id = ? and event_type = 'slide.created'",
      [byKey],
    );
    expect(slide!.actor).toEqual({ type: 'api_key', id: apiKey.id });
    // The event log shows it too.
    const log = await owner.get(`/api/notifications/events?aggregateId=${byKey}`);
    expect(log.body.events[0].payload.actor).toEqual({ type: 'api_key', id: apiKey.id });
  });

  it('records the key as the actor of a generation it starts, and system as the actor of its end', async () => {
    const { apiKey, secret } = await createKey(owner);
    const deck = (await withKey(secret, 'POST', '/api/decks', { name: 'Narrated' })).body.id;
    await withKey(secret, 'POST', `/api/decks/${deck}/slides`, {
      title: 'One',
      narrationScript: 'Hello there.',
    });
    const started = await withKey(secret, 'POST', `/api/decks/${deck}/generate`, {});
    expect(started.status, started.text).toBe(202);
    await eventually(
      async () =>
        (await withKey(secret, 'GET', `/api/decks/${deck}/generate/status`)).body.status === 'completed',
    );
    const rows = await sql<{ event_type: string; actor: unknown }>(
      `select event_type, payload->'actor' as actor from event
        where deck_id = ? and aggregate_type = 'generation_job' order by occurred_at, id`,
      [deck],
    );
    expect(rows).toEqual([
      { event_type: 'generation_job.started', actor: { type: 'api_key', id: apiKey.id } },
      { event_type: 'generation_job.completed', actor: { type: 'system' } },
    ]);
  });
});
