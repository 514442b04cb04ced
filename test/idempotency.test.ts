import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTransaction, waitForLockWaiters } from './helpers/blocking-transaction.ts';
import { png } from './helpers/files.ts';
import { expectProblem, type HttpClient, type HttpResponse } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/**
 * api.md, "Idempotent retries": every POST takes an Idempotency-Key; the first completed answer
 * (2xx, 4xx) is replayed for the same request, another request with the key is a 422, a
 * request still running makes a repeat a 409, and a 5xx is not kept.
 */
let t: TestApp;
let db: pg.Client;
let user: HttpClient & { organizationId: string; userId: string };

beforeAll(async () => {
  // A table locked by a test makes a create wait: until it is unlocked (a request still running),
  // or until the statement timeout (DATABASE_STATEMENT_TIMEOUT_MS, 2 s here), a real 503.
  t = await startTestApp({ DATABASE_STATEMENT_TIMEOUT_MS: '2000', IDEMPOTENCY_SWEEP_INTERVAL_MS: '50' });
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  user = await t.signedInClient();
});
afterAll(async () => {
  await db.end();
  await t.close();
});

let counter = 0;
const newKey = () => `key-${Date.now()}-${++counter}`;

function postWithKey(client: HttpClient, path: string, json: unknown, key: string) {
  return client.request('POST', path, { json, headers: { 'Idempotency-Key': key } });
}

async function deckCount(organizationId: string, name: string): Promise<number> {
  const { rows } = await db.query(
    'select count(*)::int as n from deck where organization_id = $1 and name = $2',
    [organizationId, name],
  );
  return rows[0].n;
}

async function keyRows(key: string) {
  const { rows } = await db.query('select * from idempotency_key where key = $1', [key]);
  return rows;
}

function expectReplayOf(replay: HttpResponse, first: HttpResponse) {
  expect(replay.status).toBe(first.status);
  expect(replay.text).toBe(first.text);
  expect(replay.headers.get('content-type')).toBe(first.headers.get('content-type'));
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
}

describe('idempotent retries', () => {
  it('the OpenAPI document states the header and its answers on every signed-in POST', async () => {
    const document = (await t.client().get('/api/openapi.json')).body;
    const createDeck = document.paths['/decks'].post;
    expect(createDeck.parameters).toContainEqual(
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }),
    );
    expect(Object.keys(createDeck.responses)).toEqual(expect.arrayContaining(['409', '422', '429']));
    expect(document.paths['/auth/login'].post.parameters ?? []).not.toContainEqual(
      expect.objectContaining({ name: 'Idempotency-Key' }),
    );
  });

  it('the migration matches the entity', async () => {
    expect(await t.app.database.orm.schema.getUpdateSchemaSQL({ wrap: false })).toBe('');
  });

  it('a replayed create answers the same 201 and body, and makes one deck and one event', async () => {
    const key = newKey();
    const first = await postWithKey(user, '/api/decks', { name: 'Replayed' }, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // The same body with other whitespace is the same request.
    const again = await user.request('POST', '/api/decks', {
      body: '{ "name" : "Replayed" }',
      headers: { 'content-type': 'application/json', 'Idempotency-Key': key },
    });
    expectReplayOf(again, first);
    expect(again.body.id).toBe(first.body.id);
    expect(await deckCount(user.organizationId, 'Replayed')).toBe(1);
    expect(await t.eventTypes(first.body.id)).toEqual(['deck.created']);
  });

  it('without the header nothing is stored and every request runs', async () => {
    const before = (await db.query('select count(*)::int as n from idempotency_key')).rows[0].n;
    expect((await user.post('/api/decks', { name: 'Plain' })).status).toBe(201);
    expect((await user.post('/api/decks', { name: 'Plain' })).status).toBe(201);
    expect(await deckCount(user.organizationId, 'Plain')).toBe(2);
    expect((await db.query('select count(*)::int as n from idempotency_key')).rows[0].n).toBe(before);
  });

  it('a 4xx is kept: the replay is the same problem', async () => {
    const key = newKey();
    const deckId = '00000000-0000-4000-8000-000000000000';
    const first = await postWithKey(user, `/api/decks/${deckId}/slides`, { title: 'x' }, key);
    expectProblem(first, 404, 'NOT_FOUND');
    const replay = await postWithKey(user, `/api/decks/${deckId}/slides`, { title: 'x' }, key);
    expectReplayOf(replay, first);
    expectProblem(replay, 404, 'NOT_FOUND');
    const invalid = newKey();
    const bad = await postWithKey(user, '/api/decks', { name: '' }, invalid);
    expectProblem(bad, 400, 'BAD_REQUEST');
    expectReplayOf(await postWithKey(user, '/api/decks', { name: '' }, invalid), bad);
    const unknownField = newKey();
    const refused = await postWithKey(user, '/api/decks', { name: 'Fine', colour: 'red' }, unknownField);
    expectProblem(refused, 400, 'BAD_REQUEST');
    expectReplayOf(
      await postWithKey(user, '/api/decks', { name: 'Fine', colour: 'red' }, unknownField),
      refused,
    );
    expect(await deckCount(user.organizationId, 'Fine')).toBe(0);
  });

  it('a 5xx is not kept: the key is free again and a retry runs', async () => {
    const key = newKey();
    const lock = await openTransaction(t.databaseUrl);
    try {
      // Inserts into deck wait for this lock until the statement timeout: a real 503.
      await lock.query('lock table deck in share mode');
      const failed = await postWithKey(user, '/api/decks', { name: 'After outage' }, key);
      expectProblem(failed, 503, 'SERVICE_UNAVAILABLE');
    } finally {
      await lock.rollback();
    }
    expect(await keyRows(key)).toEqual([]);
    const retry = await postWithKey(user, '/api/decks', { name: 'After outage' }, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await deckCount(user.organizationId, 'After outage')).toBe(1);
  });

  it('a 429 is not kept: the retry its Retry-After asks for runs again', async () => {
    const throttled = await t.signedInClient();
    const wrong = { currentPassword: 'not-the-password', newPassword: 'a-new-password-1' };
    let answer = await throttled.post('/api/auth/password', wrong);
    for (let i = 0; i < 10 && answer.status !== 429; i++) {
      answer = await throttled.post('/api/auth/password', wrong);
    }
    expectProblem(answer, 429, 'TOO_MANY_REQUESTS');
    const key = newKey();
    const first = await postWithKey(throttled, '/api/auth/password', wrong, key);
    expectProblem(first, 429, 'TOO_MANY_REQUESTS');
    expect(first.headers.get('retry-after')).not.toBeNull();
    expect(await keyRows(key)).toEqual([]);
    const retry = await postWithKey(throttled, '/api/auth/password', wrong, key);
    expectProblem(retry, 429, 'TOO_MANY_REQUESTS');
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });

  it('while the first request runs, a repeat is a 409; afterwards it is the replay', async () => {
    const key = newKey();
    const lock = await openTransaction(t.databaseUrl);
    let first: Promise<HttpResponse>;
    try {
      await lock.query('lock table deck in share mode');
      first = postWithKey(user, '/api/decks', { name: 'Slow' }, key);
      await waitForLockWaiters(t.databaseUrl, 1);
      const repeat = await postWithKey(user, '/api/decks', { name: 'Slow' }, key);
      expectProblem(repeat, 409, 'IDEMPOTENCY_KEY_IN_USE');
    } finally {
      await lock.commit();
    }
    const done = await first;
    expect(done.status).toBe(201);
    expectReplayOf(await postWithKey(user, '/api/decks', { name: 'Slow' }, key), done);
    expect(await deckCount(user.organizationId, 'Slow')).toBe(1);
  });

  it('concurrent requests with one key: one runs, the others get 409 or its replay, never two decks', async () => {
    const key = newKey();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => postWithKey(user, '/api/decks', { name: 'Raced' }, key)),
    );
    const ran = answers.filter((a) => a.status === 201 && !a.headers.get('idempotent-replayed'));
    expect(ran).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === 409) expectProblem(answer, 409, 'IDEMPOTENCY_KEY_IN_USE');
      else expect(answer.body.id).toBe(ran[0]!.body.id);
    }
    expect(await deckCount(user.organizationId, 'Raced')).toBe(1);
  });

  it('two instances share the keys: concurrent requests through both make one deck', async () => {
    const second = await startTestApp({}, { databaseUrl: t.databaseUrl });
    try {
      const key = newKey();
      const other = second.client();
      for (const [name, value] of user.cookies) other.cookies.set(name, value);
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          postWithKey(i % 2 ? other : user, '/api/decks', { name: 'Two instances' }, key),
        ),
      );
      const ran = answers.filter((a) => a.status === 201 && !a.headers.get('idempotent-replayed'));
      expect(ran).toHaveLength(1);
      for (const answer of answers) expect([201, 409]).toContain(answer.status);
      expect(await deckCount(user.organizationId, 'Two instances')).toBe(1);
      expectReplayOf(await postWithKey(other, '/api/decks', { name: 'Two instances' }, key), ran[0]!);
    } finally {
      await second.close();
    }
  });

  it('the same key with another body or another path is a 422, and runs nothing', async () => {
    const key = newKey();
    expect((await postWithKey(user, '/api/decks', { name: 'Original' }, key)).status).toBe(201);
    expectProblem(
      await postWithKey(user, '/api/decks', { name: 'Other' }, key),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
    const deck = await user.post('/api/decks', { name: 'Host' });
    expectProblem(
      await postWithKey(user, `/api/decks/${deck.body.id}/slides`, { name: 'Original' }, key),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
    expect(await deckCount(user.organizationId, 'Other')).toBe(0);
    const slides = await user.get(`/api/decks/${deck.body.id}/slides`);
    expect(slides.body.slides).toEqual([]);
  });

  it("one caller's key is invisible to another: the same key string makes two decks", async () => {
    const other = await t.signedInClient();
    const key = newKey();
    const mine = await postWithKey(user, '/api/decks', { name: 'Shared key' }, key);
    const theirs = await postWithKey(other, '/api/decks', { name: 'Shared key' }, key);
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(await deckCount(user.organizationId, 'Shared key')).toBe(1);
    expect(await deckCount(other.organizationId, 'Shared key')).toBe(1);
    // Two users of one organization are two callers too.
    const owner = await t.signedInClient('Colleagues');
    const colleague = await t.signedInClient('Colleagues', 'member');
    const a = await postWithKey(owner, '/api/decks', { name: 'Colleagues key' }, key);
    const b = await postWithKey(colleague, '/api/decks', { name: 'Colleagues key' }, key);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(await deckCount(owner.organizationId, 'Colleagues key')).toBe(2);
  });

  // Issue 29, finding 5: the caller of a cookie is the user, so the user's sessions would share keys;
  // a sign-out or a password change acts on the session that sends it, and is kept per session.
  it('a sign-out is kept per session: the key replayed from another session of the user signs that one out', async () => {
    const first = await t.signedInClient();
    const second = t.client();
    expect(
      (await second.post('/api/auth/login', { email: first.email, password: first.password })).status,
    ).toBe(200);
    const key = newKey();
    expect((await postWithKey(first, '/api/auth/logout', {}, key)).status).toBe(200);
    expect((await first.get('/api/auth/me')).status).toBe(401);
    const out = await postWithKey(second, '/api/auth/logout', {}, key);
    expect(out.status).toBe(200);
    expect(out.headers.get('idempotent-replayed')).toBeNull();
    expect((await second.get('/api/auth/me')).status).toBe(401);
  });

  it('a password change is kept per session: replayed to the session that made it, run again for another', async () => {
    const made = await t.signedInClient();
    const signIn = async (password: string) => {
      const client = t.client();
      expect((await client.post('/api/auth/login', { email: made.email, password })).status).toBe(200);
      return client;
    };
    const change = { currentPassword: made.password, newPassword: 'the-new-password-1' };
    const key = newKey();
    const first = await postWithKey(made, '/api/auth/password', change, key);
    expect(first.status).toBe(200);
    // The same session's retry is the replay, and changes nothing.
    expectReplayOf(await postWithKey(made, '/api/auth/password', change, key), first);
    // The password is set back; then a new session sends the same request with the same key: it
    // must run (a replay would say "changed" while the old password still works, and would leave
    // the user's other sessions signed in).
    const setBack = { currentPassword: change.newPassword, newPassword: made.password };
    expect((await made.post('/api/auth/password', setBack)).status).toBe(200);
    const laptop = await signIn(made.password);
    const phone = await signIn(made.password);
    const again = await postWithKey(laptop, '/api/auth/password', change, key);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect((await phone.get('/api/auth/me')).status).toBe(401);
    expect((await laptop.get('/api/auth/me')).status).toBe(200);
    await signIn(change.newPassword);
  });

  it('a multipart upload with a key is replayed (a new form boundary is the same request)', async () => {
    const key = newKey();
    const bytes = png(20, 10);
    const upload = (file: Buffer) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(file)], { type: 'image/png' }), 'logo.png');
      return user.request('POST', '/api/images', { body: form, headers: { 'Idempotency-Key': key } });
    };
    const first = await upload(bytes);
    expect(first.status).toBe(201);
    const replay = await upload(bytes);
    expectReplayOf(replay, first);
    const images = await user.get('/api/images');
    expect(images.body.images.filter((image: { id: string }) => image.id === first.body.id)).toHaveLength(1);
    expect(images.body.images).toHaveLength(1);
    expect(await t.eventTypes(first.body.id)).toEqual(['image.uploaded']);
    expectProblem(await upload(png(21, 10)), 422, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('keys: 255 printable characters are accepted; 256, empty or non-printable ones are a 400 that writes nothing', async () => {
    const longest = `${'k'.repeat(254)}~`;
    expect((await postWithKey(user, '/api/decks', { name: 'Longest key' }, longest)).status).toBe(201);
    expect(await keyRows(longest)).toHaveLength(1);
    const spaced = ' !"#$%&\'()*+,-./09:;<=>?@AZ[\\]^_`az{|}~';
    expect((await postWithKey(user, '/api/decks', { name: 'Every printable' }, spaced)).status).toBe(201);
    for (const bad of ['k'.repeat(256), 'tab\there', 'bell\u0007', 'caf\u00e9']) {
      const answer = await user
        .request('POST', '/api/decks', {
          json: { name: 'Bad key' },
          headers: { 'Idempotency-Key': bad },
        })
        .catch(() => undefined);
      // fetch itself refuses to send some header values (é): those cannot reach a server.
      if (!answer) continue;
      const body = expectProblem(answer, 400, 'BAD_REQUEST') as { issues: { path: string[] }[] };
      expect(body.issues[0]!.path).toEqual(['headers', 'Idempotency-Key']);
    }
    const raw = await rawPost(user, '/api/decks', '{"name":"Bad key"}', Buffer.from('ctl\x01key'));
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    const empty = await user.request('POST', '/api/decks', {
      json: { name: 'Bad key' },
      headers: { 'Idempotency-Key': '' },
    });
    expectProblem(empty, 400, 'BAD_REQUEST');
    expect(await deckCount(user.organizationId, 'Bad key')).toBe(0);
  });

  it('the background sweep removes expired keys and keeps the others', async () => {
    const expired = newKey();
    const kept = newKey();
    expect((await postWithKey(user, '/api/decks', { name: 'Expiring' }, expired)).status).toBe(201);
    expect((await postWithKey(user, '/api/decks', { name: 'Kept' }, kept)).status).toBe(201);
    await db.query(`update idempotency_key set expires_at = now() - interval '1 second' where key = $1`, [
      expired,
    ]);
    await eventually(async () => (await keyRows(expired)).length === 0);
    expect(await keyRows(kept)).toHaveLength(1);
    // Gone: the key runs again.
    const again = await postWithKey(user, '/api/decks', { name: 'Expiring' }, expired);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a claim abandoned by a request that died is taken over after IDEMPOTENCY_TAKEOVER_SECONDS', async () => {
    const key = newKey();
    expect((await postWithKey(user, '/api/decks', { name: 'Abandoned' }, key)).status).toBe(201);
    // As a crash between claim and answer leaves it: running, claimed a while ago. Default: 600 s.
    const claimedAgo = (seconds: number) =>
      db.query(
        `update idempotency_key set state = 'running', response_status = null, response_body = null,
                claimed_at = now() - make_interval(secs => $2) where key = $1`,
        [key, seconds],
      );
    await claimedAgo(590);
    expectProblem(
      await postWithKey(user, '/api/decks', { name: 'Abandoned' }, key),
      409,
      'IDEMPOTENCY_KEY_IN_USE',
    );
    await claimedAgo(601);
    const retry = await postWithKey(user, '/api/decks', { name: 'Abandoned' }, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expectReplayOf(await postWithKey(user, '/api/decks', { name: 'Abandoned' }, key), retry);
  });

  it('/trpc refuses the header rather than pretend to honour it', async () => {
    const answer = await user.request('POST', '/trpc/decks.createDeck', {
      json: { name: 'Via trpc' },
      headers: { 'Idempotency-Key': newKey() },
    });
    expect(answer.status).toBe(400);
    expect(await deckCount(user.organizationId, 'Via trpc')).toBe(0);
    // Queries are not mutations: a client that sends the header everywhere still reads.
    const query = await user.request('GET', '/trpc/decks.listDecks?input=%7B%7D', {
      headers: { 'Idempotency-Key': newKey() },
    });
    expect(query.status).toBe(200);
  });

  it('sign-in has no caller yet: the header changes nothing there', async () => {
    const { email, password } = await t.signedInClient();
    for (let i = 0; i < 2; i += 1) {
      const client = t.client();
      const answer = await client.request('POST', '/api/auth/login', {
        json: { email, password },
        headers: { 'Idempotency-Key': 'login-key' },
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('idempotent-replayed')).toBeNull();
      expect((await client.get('/api/auth/me')).status).toBe(200);
    }
    // Nor for a caller who is signed in already: sign-in never takes a key.
    const { email: mine, password: myPassword } = user as unknown as { email: string; password: string };
    const again = await user.request('POST', '/api/auth/login', {
      json: { email: mine, password: myPassword },
      headers: { 'Idempotency-Key': 'login-key' },
    });
    expect(again.status).toBe(200);
    expect(await keyRows('login-key')).toEqual([]);
  });

  it('the stored fingerprint of a body is keyed: what a body holds cannot be guessed back from it', async () => {
    // Bodies may hold passwords (a password change, a new user): a bare SHA-256 could be guessed offline.
    const key = newKey();
    const body = { name: 'correct-horse-battery-staple-42' };
    expect((await postWithKey(user, '/api/decks', body, key)).status).toBe(201);
    const [row] = await keyRows(key);
    const { createHash } = await import('node:crypto');
    expect(row.body_hash).toMatch(/^[0-9a-f]{64}$/);
    for (const guess of [JSON.stringify(body), `${JSON.stringify(body).length}:${JSON.stringify(body)}`]) {
      expect(row.body_hash).not.toBe(createHash('sha256').update(guess).digest('hex'));
    }
  });

  it('an answer with a secret is kept only sealed, and the replay gives the lost secret again', async () => {
    const key = newKey();
    const body = {
      name: 'hook',
      eventType: '*',
      channel: 'webhook',
      channelConfig: { url: 'https://hooks.example.com/in' },
    };
    const first = await postWithKey(user, '/api/notifications/subscriptions', body, key);
    expect(first.status).toBe(201);
    const secret = first.body.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const [row] = await keyRows(key);
    expect(row.response_body).not.toContain(secret.slice('whsec_'.length));
    expect(row.response_body).toMatch(/^sealed:v1\./);
    const replay = await postWithKey(user, '/api/notifications/subscriptions', body, key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(t.logs()).not.toContain(secret.slice('whsec_'.length));
    // Another caller with the same key string gets nothing of it (its own request runs).
    const other = await t.signedInClient();
    const theirs = await postWithKey(other, '/api/notifications/subscriptions', body, key);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.secret).not.toBe(secret);
    const list = await user.get('/api/notifications/subscriptions');
    expect(list.body.subscriptions.filter((s: { name: string }) => s.name === 'hook')).toHaveLength(1);
    // A rotation retried: rotated once, the new secret shown once.
    const rotateKey = newKey();
    const rotatePath = `/api/notifications/subscriptions/${first.body.id}/rotate-secret`;
    const rotated = await postWithKey(user, rotatePath, { graceHours: 1 }, rotateKey);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    const rotatedAgain = await postWithKey(user, rotatePath, { graceHours: 1 }, rotateKey);
    expect(rotatedAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(rotatedAgain.body).toEqual(rotated.body);
    expect((await keyRows(rotateKey))[0].response_body).not.toContain(
      rotated.body.secret.slice('whsec_'.length),
    );
    expect(
      (await t.eventTypes(first.body.id)).filter((type) => type.endsWith('secret_rotated')),
    ).toHaveLength(1);
  });
});

/** A POST with a header value fetch would refuse to send (control characters). */
async function rawPost(client: HttpClient, path: string, body: string, key: Buffer): Promise<string> {
  const net = await import('node:net');
  const url = new URL(client.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => {
      socket.write(
        Buffer.concat([
          Buffer.from(
            `POST /api${path.replace(/^\/api/, '')} HTTP/1.1\r\nHost: ${url.host}\r\nCookie: ${client.cookieHeader}\r\n` +
              `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\nIdempotency-Key: `,
          ),
          key,
          Buffer.from(`\r\n\r\n${body}`),
        ]),
      );
    });
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}
