import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret, revokeSessionsOfUser } from '../domain/auth/callers.ts';
import { expectProblem, type HttpResponse } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

// api.md, "Sessions (correction)": the `session` cookie alone, an opaque 256-bit token,
// stored only as its SHA-256, expiring, renewed at most once an hour, revoked by logout.
let t: TestApp;
const MAX_AGE_HOURS = 24;
beforeAll(async () => {
  t = await startTestApp({ SESSION_MAX_AGE_HOURS: String(MAX_AGE_HOURS) });
});
afterAll(() => t.close());

const sql = <T = any>(query: string, params: unknown[] = []) =>
  t.app.database.orm.em.getConnection().execute(query, params) as Promise<T>;

const sessionCookieOf = (response: HttpResponse) =>
  response.headers.getSetCookie().filter((cookie) => cookie.startsWith('session='));

/** A client holding only the `session` cookie, as a client generated from the OpenAPI document would. */
function clientWithToken(token: string) {
  const client = t.client();
  client.cookies.set('session', token);
  return client;
}

async function sessionRow(token: string) {
  const rows = await sql<{ token_hash: string; renewed_at: number; expires_at: number; lifetime: number }[]>(
    `select token_hash, extract(epoch from renewed_at)::float8 as renewed_at,
            extract(epoch from expires_at)::float8 as expires_at,
            extract(epoch from expires_at - renewed_at)::float8 as lifetime
       from session where token_hash = ?`,
    [createHash('sha256').update(token).digest('hex')],
  );
  return rows[0];
}

describe('the session cookie', () => {
  it('is one cookie, `session`, with an opaque 256-bit base64url token and its lifetime as Max-Age', async () => {
    const user = await t.signedInClient();
    const response = await t.client().post('/api/auth/login', { email: user.email, password: user.password });
    expect(response.status).toBe(200);
    const cookies = response.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    const [pair, ...attributes] = cookies[0]!.split(/;\s*/);
    const [name, token] = pair!.split('=');
    expect(name).toBe('session');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token!, 'base64url')).toHaveLength(32);
    expect(attributes).toEqual(
      expect.arrayContaining(['Path=/', `Max-Age=${MAX_AGE_HOURS * 3600}`, 'HttpOnly', 'SameSite=Lax']),
    );
  });

  it('alone signs the caller in: no companion cookie is needed', async () => {
    const user = await t.signedInClient('Cookie Org');
    expect([...user.cookies.keys()]).toEqual(['session']);
    const me = await clientWithToken(user.cookies.get('session')!).get('/api/auth/me');
    expect(me.status).toBe(200);
    expect(me.body.organization.name).toBe('Cookie Org');
  });

  it('is stored only as its SHA-256: the stored value is not the token and signs nobody in', async () => {
    const user = await t.signedInClient();
    const token = user.cookies.get('session')!;
    const rows = await sql<{ token_hash: string; row: string }[]>(
      'select token_hash, row_to_json(s)::text as row from session s where user_id = ?',
      [user.userId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(rows[0]!.row).not.toContain(token);

    // A copy of the table, in either spelling of the hash, is no cookie.
    const hash = rows[0]!.token_hash;
    for (const stolen of [hash, Buffer.from(hash, 'hex').toString('base64url')]) {
      expectProblem(await clientWithToken(stolen).get('/api/auth/me'), 401, 'UNAUTHORIZED');
    }
  });

  it('stops working when the session expires', async () => {
    const user = await t.signedInClient();
    const token = user.cookies.get('session')!;
    await sql("update session set expires_at = now() - interval '1 second' where user_id = ?", [user.userId]);
    expectProblem(await clientWithToken(token).get('/api/auth/me'), 401, 'UNAUTHORIZED');
    // The next sign-in clears the user's expired rows away.
    expect((await user.post('/api/auth/login', { email: user.email, password: user.password })).status).toBe(
      200,
    );
    const rows = await sql<{ n: number }[]>('select count(*)::int as n from session where user_id = ?', [
      user.userId,
    ]);
    expect(rows[0]!.n).toBe(1);
  });
});

describe('sliding renewal', () => {
  it('happens at most once an hour, moving both the row and the cookie', async () => {
    const user = await t.signedInClient();
    const token = user.cookies.get('session')!;
    const fresh = await sessionRow(token);

    // Within the hour: no renewal, no cookie.
    const early = await user.get('/api/auth/me');
    expect(early.status).toBe(200);
    expect(sessionCookieOf(early)).toEqual([]);
    expect(await sessionRow(token)).toEqual(fresh);

    // Two hours later (the row's clock moved back): the next request renews it, once,
    // however many arrive together.
    await sql(
      "update session set renewed_at = renewed_at - interval '2 hours', expires_at = expires_at - interval '2 hours' where token_hash = ?",
      [fresh!.token_hash],
    );
    const aged = await sessionRow(token);
    const responses = await Promise.all(Array.from({ length: 8 }, () => user.get('/api/auth/me')));
    expect(responses.map((r) => r.status)).toEqual(Array(8).fill(200));
    const renewals = responses.flatMap(sessionCookieOf);
    expect(renewals).toHaveLength(1);
    // The same token, with the whole lifetime again.
    expect(renewals[0]).toMatch(new RegExp(`^session=${token};.*Max-Age=${MAX_AGE_HOURS * 3600}`));
    const renewed = await sessionRow(token);
    expect(renewed!.renewed_at).toBeGreaterThan(aged!.renewed_at);
    expect(renewed!.expires_at).toBeGreaterThan(aged!.expires_at);
    expect(renewed!.lifetime).toBe(MAX_AGE_HOURS * 3600);

    // And not again within the hour.
    const after = await user.get('/api/auth/me');
    expect(sessionCookieOf(after)).toEqual([]);
    expect(await sessionRow(token)).toEqual(renewed);
  });
});

describe('revocation', () => {
  it('logout revokes the session presented, and only that one', async () => {
    const user = await t.signedInClient();
    const laptop = user.cookies.get('session')!;
    const phone = t.client();
    expect((await phone.post('/api/auth/login', { email: user.email, password: user.password })).status).toBe(
      200,
    );
    const phoneToken = phone.cookies.get('session')!;

    const out = await clientWithToken(laptop).post('/api/auth/logout');
    expect(out.status).toBe(200);
    // The cookie is cleared in the browser (koa-session clears it with an Expires in 1970, which
    // RFC 6265 §5.3 deletes as Max-Age=0 would) and the row is gone on the server.
    expect(sessionCookieOf(out)).toEqual([
      expect.stringMatching(/^session=;.*(Max-Age=0|expires=Thu, 01 Jan 1970 00:00:00 GMT)/i),
    ]);
    expect(await sessionRow(laptop)).toBeUndefined();
    expectProblem(await clientWithToken(laptop).get('/api/auth/me'), 401, 'UNAUTHORIZED');
    // Another session of the same user is untouched.
    expect((await clientWithToken(phoneToken).get('/api/auth/me')).status).toBe(200);
  });

  it('by user id revokes every session of that user but the one kept', async () => {
    const user = await t.signedInClient();
    const other = await t.signedInClient();
    const tokens = [user.cookies.get('session')!];
    for (let i = 0; i < 2; i++) {
      const client = t.client();
      await client.post('/api/auth/login', { email: user.email, password: user.password });
      tokens.push(client.cookies.get('session')!);
    }
    const revoked = await revokeSessionsOfUser(
      t.app.database.orm.em.fork(),
      user.userId,
      hashSecret(tokens[0]!),
    );
    expect(revoked).toBe(2);
    expect((await clientWithToken(tokens[0]!).get('/api/auth/me')).status).toBe(200);
    for (const token of tokens.slice(1)) {
      expectProblem(await clientWithToken(token).get('/api/auth/me'), 401, 'UNAUTHORIZED');
    }
    expect((await other.get('/api/auth/me')).status).toBe(200);
  });

  it('removing the user revokes its sessions', async () => {
    const user = await t.signedInClient();
    await sql('delete from app_user where id = ?', [user.userId]);
    expectProblem(await user.get('/api/auth/me'), 401, 'UNAUTHORIZED');
  });
});
