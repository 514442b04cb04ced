import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithDatabaseClient } from './helpers/app-setup.ts';
import type { TestApp } from './helpers/test-app.ts';

/**
 * Sign-in takes no Idempotency-Key (docs/decisions/046-login-idempotency.md): a key sent there is
 * ignored, as the OpenAPI document of the operation says, and nothing of the answer (a session
 * secret) is ever kept to be replayed. Sign-out does take one (kept per session).
 */
let t: TestApp;
let db: pg.Client;
let close: () => Promise<void>;
beforeAll(async () => ({ t, db, close } = await startWithDatabaseClient()));
afterAll(() => close());

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await db.query(`select count(*)::int as n from ${sql}`, params);
  return rows[0].n;
}

describe('sign-in and Idempotency-Key', () => {
  it('the OpenAPI document says sign-in takes no key and ignores one; sign-out takes one', async () => {
    const document = (await t.client().get('/api/openapi.json')).body;
    const login = document.paths['/auth/login'].post;
    expect(login.description).toMatch(/Takes no `Idempotency-Key`: a key sent here is ignored/);
    const headerNames = (operation: { parameters?: { in: string; name: string }[] }) =>
      (operation.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
    expect(headerNames(login)).not.toContain('Idempotency-Key');
    expect(headerNames(document.paths['/auth/logout'].post)).toContain('Idempotency-Key');
  });

  it('a key on sign-in is ignored: each sign-in makes its own session, none is replayed or kept', async () => {
    const { email, password, userId } = await t.signedInClient();
    const sessionsBefore = await count('session where user_id = $1', [userId]);
    const tokens: string[] = [];
    // The same key and body twice, then a key that /api would refuse as malformed elsewhere.
    for (const key of ['login-retry', 'login-retry', 'k'.repeat(256)]) {
      const client = t.client();
      const answer = await client.request('POST', '/api/auth/login', {
        json: { email, password },
        headers: { 'Idempotency-Key': key },
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('idempotent-replayed')).toBeNull();
      expect((await client.get('/api/auth/me')).status).toBe(200);
      tokens.push(client.cookies.get('session')!);
    }
    expect(new Set(tokens).size).toBe(3);
    expect(await count('session where user_id = $1', [userId])).toBe(sessionsBefore + 3);
    // No answer kept: no row could hold a session's secret.
    expect(await count('idempotency_key where key in ($1, $2)', ['login-retry', 'k'.repeat(256)])).toBe(0);
  });

  it('over /trpc a key on sign-in is a 400 in tRPC’s shape, as on every mutation there, and signs nobody in', async () => {
    const { email, password, userId } = await t.signedInClient();
    const sessionsBefore = await count('session where user_id = $1', [userId]);
    const response = await fetch(`${t.url}/trpc/auth.logIn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'login-retry' },
      body: JSON.stringify({ email, password }),
    });
    expect(response.status).toBe(400);
    expect(response.headers.getSetCookie()).toEqual([]);
    expect((await response.json()).error.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
    expect(await count('session where user_id = $1', [userId])).toBe(sessionsBefore);
  });
});
