import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from './helpers/http-client.ts';
import { apartFromRateLimitCounts, statementsDuring } from './helpers/statements.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

let t: TestApp;
const password = 'correct horse battery staple';

beforeAll(async () => {
  t = await startTestApp({
    LOGIN_MAX_FAILURES_PER_EMAIL_AND_ADDRESS: '3',
    LOGIN_THROTTLE_WINDOW_SECONDS: '600',
  });
  await t.createUser({ organization: 'Acme', email: 'ada@acme.test', password, name: 'Ada' });
});
afterAll(() => t.close());

describe('POST /api/auth/login', () => {
  it('returns the user and organization and sets an HttpOnly, SameSite=Lax session cookie', async () => {
    const client = t.client();
    const response = await client.post('/api/auth/login', { email: 'Ada@Acme.test', password });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      user: { id: expect.any(String), email: 'ada@acme.test', name: 'Ada', role: 'owner' },
      organization: { id: expect.any(String), name: 'Acme' },
    });
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith('session='))!;
    expect(cookie).toMatch(/httponly/i);
    expect(cookie).toMatch(/samesite=lax/i);
    expect(cookie).not.toMatch(/;\s*secure/i);
  });

  it('marks the cookie Secure when the client came over https through a trusted proxy', async () => {
    const proxied = await startTestApp({ TRUST_PROXY: 'true' });
    try {
      await proxied.createUser({ organization: 'P', email: 'p@p.test', password });
      const response = await proxied.client().request('POST', '/api/auth/login', {
        json: { email: 'p@p.test', password },
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.getSetCookie().find((c) => c.startsWith('session='))).toMatch(/;\s*secure/i);
    } finally {
      await proxied.close();
    }
  });

  it('answers a wrong e-mail and a wrong password with the same 401', async () => {
    const wrongEmail = await t.client().post('/api/auth/login', { email: 'nobody@acme.test', password });
    const wrongPassword = await t
      .client()
      .post('/api/auth/login', { email: 'ada@acme.test', password: 'nope' });
    expectProblem(wrongEmail, 401, 'UNAUTHORIZED');
    expect(wrongPassword.status).toBe(401);
    expect(wrongPassword.body).toEqual(wrongEmail.body);
    expect(wrongEmail.headers.getSetCookie()).toEqual([]);
  });

  it('rejects a malformed body with issues naming the fields', async () => {
    const response = await t.client().post('/api/auth/login', { email: 'not-an-email' });
    const problem = expectProblem(response, 400, 'BAD_REQUEST');
    expect(problem.issues!.map((i) => i.path.join('.'))).toEqual(
      expect.arrayContaining(['email', 'password']),
    );
  });

  it('throttles repeated failures for one e-mail from one address with 429 and Retry-After, even for the right password', async () => {
    await t.createUser({ organization: 'Acme', email: 'target@acme.test', password });
    for (let i = 0; i < 3; i++) {
      const failed = await t
        .client()
        .post('/api/auth/login', { email: 'target@acme.test', password: `wrong-${i}` });
      expect(failed.status).toBe(401);
    }
    const blocked = await t.client().post('/api/auth/login', { email: 'target@acme.test', password });
    expectProblem(blocked, 429, 'TOO_MANY_REQUESTS');
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(600);
    // Other accounts are not affected by this e-mail's lock.
    expect((await t.client().post('/api/auth/login', { email: 'ada@acme.test', password })).status).toBe(200);
  });

  it('throttles repeated failures from one address across e-mails', async () => {
    const strict = await startTestApp({ LOGIN_MAX_FAILURES_PER_ADDRESS: '2' });
    try {
      await strict.createUser({ organization: 'S', email: 's@s.test', password });
      for (const email of ['a@s.test', 'b@s.test']) {
        expect((await strict.client().post('/api/auth/login', { email, password })).status).toBe(401);
      }
      const blocked = await strict.client().post('/api/auth/login', { email: 's@s.test', password });
      expectProblem(blocked, 429, 'TOO_MANY_REQUESTS');
      expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await strict.close();
    }
  });

  it('writes a user.logged_in event', async () => {
    const client = await t.signedInClient();
    const rows = await t.app.database.orm.em
      .getConnection()
      .execute(
        "select event_type, aggregate_id from event where event_type = 'user.logged_in' and aggregate_id = ?",
        [client.userId],
      );
    expect(rows).toHaveLength(1);
  });
});

describe('GET /api/auth/me', () => {
  it('returns the signed-in user and organization', async () => {
    const client = await t.signedInClient('Me Org');
    const response = await client.get('/api/auth/me');
    expect(response.status).toBe(200);
    expect(response.body.user).toMatchObject({ id: client.userId, role: 'owner' });
    expect(Object.keys(response.body.user).sort()).toEqual(['email', 'id', 'name', 'role']);
    expect(response.body.organization).toEqual({ id: client.organizationId, name: 'Me Org' });
  });

  it('is 401 without a cookie, with an unknown one, and with a tampered one', async () => {
    expectProblem(await t.client().get('/api/auth/me'), 401, 'UNAUTHORIZED');
    const unknown = t.client();
    unknown.cookies.set('session', 'made-up');
    expectProblem(await unknown.get('/api/auth/me'), 401, 'UNAUTHORIZED');

    const tampered = await t.signedInClient();
    tampered.cookies.set('session', `${tampered.cookies.get('session')!.slice(0, -1)}x`);
    expectProblem(await tampered.get('/api/auth/me'), 401, 'UNAUTHORIZED');
  });
});

describe('POST /api/auth/logout', () => {
  it('revokes the session on the server: the old cookie no longer works', async () => {
    const client = await t.signedInClient();
    const stolen = new Map(client.cookies);
    const response = await client.post('/api/auth/logout');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true });

    const replay = t.client();
    for (const [name, value] of stolen) replay.cookies.set(name, value);
    expectProblem(await replay.get('/api/auth/me'), 401, 'UNAUTHORIZED');
    const rows = await t.app.database.orm.em
      .getConnection()
      .execute('select count(*)::int as n from session where user_id = ?', [client.userId]);
    expect(rows[0]?.n).toBe(0);
  });

  it('gives a new session key at each login and drops the one presented (no session fixation)', async () => {
    const client = await t.signedInClient();
    const before = new Map(client.cookies);
    expect(
      (await client.post('/api/auth/login', { email: client.email, password: client.password })).status,
    ).toBe(200);
    expect(client.cookies.get('session')).not.toBe(before.get('session'));
    expect((await client.get('/api/auth/me')).status).toBe(200);

    const old = t.client();
    for (const [name, value] of before) old.cookies.set(name, value);
    expectProblem(await old.get('/api/auth/me'), 401, 'UNAUTHORIZED');
  });
});

describe('logs', () => {
  it('never contain passwords, cookies or session keys', async () => {
    const client = await t.signedInClient();
    await client.get('/api/auth/me');
    const response = await client.get('/api/auth/me', { 'x-request-id': 'trace-me-123' });
    expect(response.headers.get('x-request-id')).toBe('trace-me-123');
    const logs = t.logs();
    const line = logs
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((l) => l.requestId === 'trace-me-123' && l.msg === 'request');
    expect(line).toMatchObject({
      method: 'GET',
      path: '/api/auth/me',
      status: 200,
      durationMs: expect.any(Number),
    });
    expect(logs).not.toContain(password);
    for (const value of client.cookies.values()) expect(logs).not.toContain(value);
  });
});

describe('the cost of authentication', () => {
  it('GET /api/auth/me sends one statement, the prepared session lookup, and no ORM query (besides the shared rate limit’s count)', async () => {
    // No background work here: every statement sent while counting is the requests'.
    const quiet = await startTestApp({ NOTIFICATIONS_ENABLED: 'false', GENERATION_ENABLED: 'false' });
    try {
      const user = await quiet.signedInClient();
      expect((await user.get('/api/auth/me')).status).toBe(200);
      const statements = await statementsDuring(quiet, async () => {
        for (let i = 0; i < 5; i++) expect((await user.get('/api/auth/me')).status).toBe(200);
      });
      const { own, counts } = apartFromRateLimitCounts(statements);
      expect(own).toHaveLength(5);
      expect(counts.length).toBeGreaterThanOrEqual(1);
      expect(counts.length).toBeLessThanOrEqual(5);
      // Named: PostgreSQL parses and plans it once per connection. A fresh session is not renewed.
      for (const statement of own) {
        expect(statement).toMatch(/^authenticate-session: select .* from session s join app_user u/s);
      }
    } finally {
      await quiet.close();
    }
  });
});
