import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../domain/auth/passwords.ts';
import { expectProblem, type HttpClient } from './helpers/http-client.ts';
import { snapshot } from './helpers/resources.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/** The users routes and the password change (api.md, "Who may do what"). */
let t: TestApp;
const MAX_FAILURES_PER_EMAIL = 3;

beforeAll(async () => {
  t = await startTestApp({ LOGIN_MAX_FAILURES_PER_EMAIL_AND_ADDRESS: String(MAX_FAILURES_PER_EMAIL) });
});
afterAll(() => t.close());

let seq = 0;
const email = (what = 'user') => `${what}${++seq}@users.test`;
const newUserBody = (role = 'member') => ({
  email: email(),
  name: 'New User',
  role,
  password: 'a-long-password',
});

/** A new organization with its owner, signed in. */
async function organization() {
  const owner = await t.signedInClient();
  const name = (await owner.get('/api/auth/me')).body.organization.name as string;
  return { owner, name, join: (role: 'owner' | 'admin' | 'member') => t.signedInClient(name, role) };
}

async function logIn(address: string, password: string): Promise<HttpClient> {
  const client = t.client();
  const response = await client.post('/api/auth/login', { email: address, password });
  expect(response.status, response.text).toBe(200);
  return client;
}

async function payloadsOf(userId: string) {
  const rows = await t.app.database.orm.em
    .getConnection()
    .execute<{ event_type: string; payload: unknown }[]>(
      'select event_type, payload from event where aggregate_id = ? order by occurred_at, id',
      [userId],
    );
  return rows;
}

describe('GET /api/users', () => {
  it('lists the organization’s users, oldest first, and never a password or hash', async () => {
    const { owner, join } = await organization();
    const admin = await join('admin');
    const { stranger } = { stranger: await t.signedInClient() };
    const response = await admin.get('/api/users');
    expect(response.status).toBe(200);
    expect(response.body.users).toEqual([
      {
        id: owner.userId,
        email: owner.email,
        name: expect.any(String),
        role: 'owner',
        createdAt: expect.any(String),
      },
      {
        id: admin.userId,
        email: admin.email,
        name: expect.any(String),
        role: 'admin',
        createdAt: expect.any(String),
      },
    ]);
    expect(response.text).not.toMatch(/scrypt|argon2|password/i);
    expect((await stranger.get('/api/users')).body.users.map((u: { id: string }) => u.id)).toEqual([
      stranger.userId,
    ]);
  });
});

describe('POST /api/users', () => {
  it('adds a user who can sign in with that password; the event carries no password', async () => {
    const { owner } = await organization();
    const body = {
      email: email().toUpperCase(),
      name: '  Ada  ',
      role: 'admin',
      password: 'the-secret-word-42',
    };
    const response = await owner.post('/api/users', body);
    expect(response.status, response.text).toBe(201);
    expect(response.body).toEqual({
      id: expect.any(String),
      email: body.email.toLowerCase(),
      name: 'Ada',
      role: 'admin',
      createdAt: expect.any(String),
    });
    const ada = await logIn(body.email.toLowerCase(), body.password);
    expect((await ada.get('/api/auth/me')).body.user.role).toBe('admin');
    const events = await payloadsOf(response.body.id);
    expect(events.map((e) => e.event_type)).toEqual(['user.created', 'user.logged_in']);
    expect(events[0]!.payload).toEqual({ ...response.body, actor: { type: 'user', id: owner.userId } });
    for (const text of [JSON.stringify(events), t.logs()]) {
      expect(text).not.toContain(body.password);
      expect(text).not.toContain('$argon2id$');
    }
  });

  it('refuses an e-mail already in use, in any organization and any case (409), writing nothing', async () => {
    const { owner } = await organization();
    const other = await t.signedInClient();
    const before = await snapshot(t);
    const problem = expectProblem(
      await owner.post('/api/users', { ...newUserBody(), email: other.email.toUpperCase() }),
      409,
      'CONFLICT',
    );
    expect(problem.detail).not.toMatch(/scrypt|argon2/);
    expect(await snapshot(t)).toEqual(before);
  });

  it('answers an e-mail of another organization exactly as one of its own: the same 409, naming no holder, writing nothing', async () => {
    const { owner, join } = await organization();
    const colleague = await join('member');
    const stranger = await t.signedInClient();
    const before = await snapshot(t);
    const add = (address: string) => owner.post('/api/users', { ...newUserBody(), email: address });
    const own = await add(colleague.email);
    const foreign = await add(stranger.email.toUpperCase());
    expectProblem(own, 409, 'CONFLICT');
    expect(foreign.status).toBe(409);
    expect(foreign.body).toEqual(own.body);
    expect(foreign.headers.get('content-type')).toBe(own.headers.get('content-type'));
    // "Cannot be used", not "exists": and neither the address nor whose it is.
    expect(foreign.body.detail).not.toMatch(/exist|organi[sz]ation/i);
    expect(foreign.text).not.toContain(stranger.email);
    expect(await snapshot(t)).toEqual(before);
  });

  it('counts against the organization’s heavy limit: each addition costs a password hash, and probing e-mails is bounded', async () => {
    const limited = await startTestApp({ HEAVY_LIMIT_PER_MINUTE: '2' });
    try {
      const owner = await limited.signedInClient();
      const taken = (await limited.signedInClient()).email;
      expect((await owner.post('/api/users', newUserBody())).status).toBe(201);
      expect((await owner.post('/api/users', { ...newUserBody(), email: taken })).status).toBe(409);
      const refused = await owner.post('/api/users', { ...newUserBody(), email: taken });
      expectProblem(refused, 429, 'TOO_MANY_REQUESTS');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it('gives one of two concurrent additions of the same e-mail a 409', async () => {
    const { owner } = await organization();
    const body = newUserBody();
    const statuses = (
      await Promise.all([owner.post('/api/users', body), owner.post('/api/users', body)])
    ).map((r) => r.status);
    expect(statuses.sort()).toEqual([201, 409]);
  });

  it('validates every field: password 8 to 1024 characters, name 1 to 200, a known role, no other field', async () => {
    const { owner } = await organization();
    const before = await snapshot(t);
    const refused: [Record<string, unknown>, string][] = [
      [{ ...newUserBody(), password: 'x'.repeat(7) }, 'password'],
      [{ ...newUserBody(), password: 'x'.repeat(1025) }, 'password'],
      [{ ...newUserBody(), name: 'n'.repeat(201) }, 'name'],
      [{ ...newUserBody(), name: '   ' }, 'name'],
      [{ ...newUserBody(), role: 'superuser' }, 'role'],
      [{ ...newUserBody(), email: 'not-an-email' }, 'email'],
      [{ ...newUserBody(), organizationId: owner.organizationId }, 'organizationId'],
      [{ email: email(), name: 'x', role: 'member' }, 'password'],
    ];
    for (const [body, field] of refused) {
      const problem = expectProblem(await owner.post('/api/users', body), 400, 'BAD_REQUEST');
      expect(
        problem.issues?.map((i) => i.path[0]),
        JSON.stringify(body).slice(0, 80),
      ).toContain(field);
    }
    expect(await snapshot(t)).toEqual(before);
    for (const body of [
      { ...newUserBody(), password: 'x'.repeat(8), name: 'n'.repeat(200) },
      { ...newUserBody(), password: 'x'.repeat(1024) },
    ]) {
      expect((await owner.post('/api/users', body)).status).toBe(201);
    }
  });
});

describe('PATCH /api/users/{userId}', () => {
  it('changes role and name; the new role counts from the user’s next request', async () => {
    const { owner, join } = await organization();
    const member = await join('member');
    expectProblem(await member.get('/api/users'), 403, 'FORBIDDEN');
    const response = await owner.patch(`/api/users/${member.userId}`, { role: 'admin', name: 'Promoted' });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ id: member.userId, role: 'admin', name: 'Promoted' });
    expect((await member.get('/api/users')).status).toBe(200);
    expect(await t.eventTypes(member.userId)).toEqual(['user.logged_in', 'user.updated']);
    // Nothing changed: the user as they are, and no event.
    expect((await owner.patch(`/api/users/${member.userId}`, { role: 'admin' })).status).toBe(200);
    expect(await t.eventTypes(member.userId)).toEqual(['user.logged_in', 'user.updated']);
    await owner.patch(`/api/users/${member.userId}`, { role: 'member' });
    expectProblem(await member.get('/api/users'), 403, 'FORBIDDEN');
  });

  it('keeps the last owner an owner (409, nothing written); with a second owner, one may step down', async () => {
    const { owner, join } = await organization();
    const before = await snapshot(t);
    const problem = expectProblem(
      await owner.patch(`/api/users/${owner.userId}`, { role: 'admin' }),
      409,
      'CONFLICT',
    );
    expect(problem.detail).toMatch(/last owner/);
    expect(await snapshot(t)).toEqual(before);
    const second = await join('owner');
    expect((await owner.patch(`/api/users/${owner.userId}`, { role: 'admin' })).status).toBe(200);
    expectProblem(await second.patch(`/api/users/${second.userId}`, { role: 'member' }), 409, 'CONFLICT');
    // The former owner is an admin now: users are the owner's.
    expectProblem(await owner.patch(`/api/users/${second.userId}`, { name: 'x' }), 403, 'FORBIDDEN');
  });

  it('answers another organization’s user like a missing one (404)', async () => {
    const { owner } = await organization();
    const stranger = await t.signedInClient();
    const foreign = expectProblem(
      await owner.patch(`/api/users/${stranger.userId}`, { name: 'x' }),
      404,
      'NOT_FOUND',
    );
    expect(foreign.detail).toContain(stranger.userId);
    expectProblem(await owner.delete(`/api/users/${stranger.userId}`), 404, 'NOT_FOUND');
  });
});

describe('two owners at once', () => {
  it.each([
    ['demote each other', (c: HttpClient, id: string) => c.patch(`/api/users/${id}`, { role: 'member' })],
    ['remove each other', (c: HttpClient, id: string) => c.delete(`/api/users/${id}`)],
    [
      'demote themselves',
      (c: HttpClient, _id: string, own: string) => c.patch(`/api/users/${own}`, { role: 'admin' }),
    ],
  ] as const)('%s: one succeeds, the other is refused, one owner is left', async (_name, act) => {
    for (let round = 0; round < 4; round++) {
      const { owner: a, join, name } = await organization();
      const b = await join('owner');
      const responses = await Promise.all([act(a, b.userId, a.userId), act(b, a.userId, b.userId)]);
      const [first, second] = responses.map((r) => r.status).sort();
      expect(first).toBe(200);
      // 409 when both were owners as they were checked (the last owner stays); when the first
      // change had committed before the second caller was signed in, that caller is no longer an
      // owner (403) or no longer a user (401). Each is a refusal that changes nothing.
      expect([401, 403, 409]).toContain(second);
      const rows = await t.app.database.orm.em.getConnection().execute<{ n: number }[]>(
        `select count(*)::int as n from app_user u join organization o on o.id = u.organization_id
            where o.name = ? and u.role = 'owner'`,
        [name],
      );
      expect(rows[0]!.n).toBe(1);
    }
  });
});

describe('DELETE /api/users/{userId}', () => {
  it('removes the user and ends their sessions; what they made stays with the organization', async () => {
    const { owner, join } = await organization();
    const member = await join('member');
    const deckId = (await member.post('/api/decks', { name: 'Made by a leaver' })).body.id;
    const before = (await owner.get('/api/users')).body.users.length;
    expect((await owner.delete(`/api/users/${member.userId}`)).body).toEqual({ success: true });
    expectProblem(await member.get('/api/auth/me'), 401, 'UNAUTHORIZED');
    expect(
      (await t.client().post('/api/auth/login', { email: member.email, password: member.password })).status,
    ).toBe(401);
    expect((await owner.get('/api/users')).body.users.length).toBe(before - 1);
    expect((await owner.get(`/api/decks/${deckId}`)).status).toBe(200);
    expect(await t.eventTypes(member.userId)).toEqual(['user.logged_in', 'user.deleted']);
    expectProblem(await owner.delete(`/api/users/${member.userId}`), 404, 'NOT_FOUND');
  });

  it('refuses to remove the last owner (409), writing nothing', async () => {
    const { owner } = await organization();
    const before = await snapshot(t);
    expectProblem(await owner.delete(`/api/users/${owner.userId}`), 409, 'CONFLICT');
    expect(await snapshot(t)).toEqual(before);
    expect((await owner.get('/api/auth/me')).status).toBe(200);
  });
});

describe('POST /api/auth/password', () => {
  it('changes the password: this session stays, every other one ends, the old password stops working', async () => {
    const user = await t.signedInClient();
    const elsewhere = await logIn(user.email, user.password);
    const newPassword = 'a-brand-new-password';
    const response = await user.post('/api/auth/password', { currentPassword: user.password, newPassword });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ success: true });
    expect((await user.get('/api/auth/me')).status).toBe(200);
    expectProblem(await elsewhere.get('/api/auth/me'), 401, 'UNAUTHORIZED');
    expect(
      (await t.client().post('/api/auth/login', { email: user.email, password: user.password })).status,
    ).toBe(401);
    await logIn(user.email, newPassword);
    const events = await payloadsOf(user.userId);
    const changed = events.find((e) => e.event_type === 'user.password_changed')!;
    expect(changed.payload).toMatchObject({ id: user.userId, email: user.email });
    for (const text of [JSON.stringify(events), t.logs()]) {
      expect(text).not.toContain(newPassword);
      expect(text).not.toContain(user.password);
    }
  });

  it('answers a wrong current password with 400 and an issue on currentPassword, changing nothing', async () => {
    const user = await t.signedInClient();
    const elsewhere = await logIn(user.email, user.password);
    const before = await snapshot(t);
    const problem = expectProblem(
      await user.post('/api/auth/password', {
        currentPassword: 'not-it',
        newPassword: 'a-brand-new-password',
      }),
      400,
      'BAD_REQUEST',
    );
    expect(problem.issues).toEqual([{ path: ['currentPassword'], message: expect.any(String) }]);
    expect(await snapshot(t)).toEqual(before);
    expect((await elsewhere.get('/api/auth/me')).status).toBe(200);
  });

  it(`counts wrong current passwords like failed sign-ins: past ${MAX_FAILURES_PER_EMAIL}, 429 even with the right one`, async () => {
    const user = await t.signedInClient();
    const attempt = (currentPassword: string) =>
      user.post('/api/auth/password', { currentPassword, newPassword: 'a-brand-new-password' });
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL; i++) expect((await attempt('wrong')).status).toBe(400);
    const limited = expectProblem(await attempt(user.password), 429, 'TOO_MANY_REQUESTS');
    expect(limited.detail).not.toContain(user.password);
    // The password did not change.
    expect((await user.get('/api/auth/me')).status).toBe(200);
  });

  it('validates the new password: at least 8 characters, at most 1024', async () => {
    const user = await t.signedInClient();
    const change = (newPassword: string) =>
      user.post('/api/auth/password', { currentPassword: user.password, newPassword });
    const problem = expectProblem(await change('x'.repeat(7)), 400, 'BAD_REQUEST');
    expect(problem.issues?.map((i) => i.path)).toEqual([['newPassword']]);
    expectProblem(await change('x'.repeat(1025)), 400, 'BAD_REQUEST');
    expect((await change('x'.repeat(8))).status).toBe(200);
    user.password = 'x'.repeat(8);
    expect((await change('y'.repeat(1024))).status).toBe(200);
  });

  it('needs a session (401)', async () => {
    expectProblem(
      await t.client().post('/api/auth/password', { currentPassword: 'a', newPassword: 'b'.repeat(8) }),
      401,
      'UNAUTHORIZED',
    );
  });

  it('hashes off the event loop: concurrent changes never hold it as long as one hash takes', async () => {
    const started = performance.now();
    await hashPassword('time one hash');
    const oneHashMs = performance.now() - started;
    const users = await Promise.all([1, 2, 3].map(() => t.signedInClient()));
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const responses = await Promise.all(
      users.map((u) =>
        u.post('/api/auth/password', { currentPassword: u.password, newPassword: 'another-password' }),
      ),
    );
    delay.disable();
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(delay.max / 1e6).toBeLessThan(oneHashMs);
  });
});
