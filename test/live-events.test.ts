import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTransaction } from './helpers/blocking-transaction.ts';
import { rawStream, StreamReader } from './helpers/event-stream.ts';
import { expectProblem, type HttpClient, keyClient } from './helpers/http-client.ts';
import { startTcpProxy } from './helpers/tcp-proxy.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/**
 * `GET /api/notifications/events/stream` (api.md, "Live events") with a real SSE client (the
 * `eventsource` package): delivery, filters, resume, role filters and isolation, revocation, the
 * per-caller cap, a consumer that stops reading, commit order, and a second instance.
 */
let t: TestApp;
let owner: HttpClient & { organizationId: string; userId: string };
const readers: StreamReader[] = [];

/** A session's stream (its cookie), or an API key's (`Bearer`). */
function follow(base: string, query: string, headers: Record<string, string>) {
  const reader = new StreamReader(base, query, headers);
  readers.push(reader);
  return reader;
}
const asUser = (client: HttpClient) => ({ cookie: client.cookieHeader });
const logIds = async (organizationId: string) =>
  (
    await t.app.database.orm.em
      .getConnection()
      .execute<{ id: string }[]>('select id from event where organization_id = ? order by tx_id, seq', [
        organizationId,
      ])
  ).map((row) => row.id);

/** The heap in use after a full collection. */
function liveHeap(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return getHeapStatistics().used_heap_size;
}

beforeAll(async () => {
  t = await startTestApp({ STREAM_AUTH_CHECK_SECONDS: '1', STREAM_BUFFER_BYTES: String(16 * 1024) });
  owner = await t.signedInClient();
});
afterAll(async () => {
  for (const reader of readers) reader.close();
  await t.close();
});

describe('the live stream', () => {
  it('delivers each event as the log returns it: id, event type, data', async () => {
    const reader = follow(t.url, '', asUser(owner));
    await reader.opened();
    const deck = (await owner.post('/api/decks', { name: 'Live' })).body;
    await owner.post(`/api/decks/${deck.id}/slides`, { title: 'One' });
    await owner.patch(`/api/decks/${deck.id}`, { name: 'Live, renamed' });
    await eventually(() => reader.messages.length >= 3);
    const log = (await owner.get('/api/notifications/events?limit=3')).body.events.reverse();
    expect(reader.messages.map((m) => m.type)).toEqual(['deck.created', 'slide.created', 'deck.updated']);
    expect(reader.messages.map((m) => m.data)).toEqual(log);
    expect(reader.ids).toEqual(log.map((event: { id: string }) => event.id));
    reader.close();
  });

  it('applies the log’s filters, `slide.*` included', async () => {
    const deck = (await owner.post('/api/decks', { name: 'Filtered' })).body;
    const other = (await owner.post('/api/decks', { name: 'Other' })).body;
    const slides = follow(t.url, '?eventType=slide.*', asUser(owner));
    const ofDeck = follow(t.url, `?deckId=${deck.id}`, asUser(owner));
    const exact = follow(t.url, '?eventType=deck.updated&aggregateId=' + other.id, asUser(owner));
    await Promise.all([slides.opened(), ofDeck.opened(), exact.opened()]);
    const slide = (await owner.post(`/api/decks/${deck.id}/slides`, { title: 'S' })).body;
    await owner.patch(`/api/slides/${slide.id}`, { title: 'S2' });
    await owner.patch(`/api/decks/${deck.id}`, { name: 'F2' });
    await owner.post(`/api/decks/${other.id}/slides`, { title: 'O' });
    await owner.patch(`/api/decks/${other.id}`, { name: 'O2' });
    await eventually(
      () => slides.messages.length >= 3 && ofDeck.messages.length >= 3 && exact.messages.length >= 1,
    );
    expect(slides.messages.map((m) => m.type)).toEqual(['slide.created', 'slide.updated', 'slide.created']);
    expect(ofDeck.messages.map((m) => m.type)).toEqual(['slide.created', 'slide.updated', 'deck.updated']);
    expect(exact.messages.map((m) => [m.type, m.data.aggregateId])).toEqual([['deck.updated', other.id]]);
    for (const reader of [slides, ofDeck, exact]) reader.close();
  });

  it('refuses a malformed filter with 400', async () => {
    expectProblem(await owner.get('/api/notifications/events/stream?eventType=nonsense'), 400, 'BAD_REQUEST');
    expectProblem(await owner.get('/api/notifications/events/stream?deckId=not-a-uuid'), 400, 'BAD_REQUEST');
  });
});

describe('resuming', () => {
  it('starts after Last-Event-ID (header or ?lastEventId=), in order; an unknown id is a 400', async () => {
    const first = (await owner.post('/api/decks', { name: 'Before' })).body;
    const [created] = (await owner.get(`/api/notifications/events?aggregateId=${first.id}`)).body.events;
    await owner.patch(`/api/decks/${first.id}`, { name: 'After 1' });
    await owner.patch(`/api/decks/${first.id}`, { name: 'After 2' });
    const expected = (await owner.get(`/api/notifications/events?aggregateId=${first.id}`)).body.events
      .reverse()
      .slice(1)
      .map((e: { id: string }) => e.id);
    const byHeader = follow(t.url, `?aggregateId=${first.id}`, {
      ...asUser(owner),
      'last-event-id': created.id,
    });
    const byQuery = follow(t.url, `?aggregateId=${first.id}&lastEventId=${created.id}`, asUser(owner));
    await eventually(() => byHeader.messages.length >= 2 && byQuery.messages.length >= 2);
    expect(byHeader.ids).toEqual(expected);
    expect(byQuery.ids).toEqual(expected);
    byHeader.close();
    byQuery.close();

    const unknown = await owner.get(`/api/notifications/events/stream?lastEventId=${randomUUID()}`);
    expect(expectProblem(unknown, 400, 'BAD_REQUEST').issues).toEqual([
      { path: ['lastEventId'], message: expect.any(String) },
    ]);
    const stranger = await t.signedInClient();
    const foreign = await stranger.get(`/api/notifications/events/stream?lastEventId=${created.id}`);
    expect(foreign.text).toBe(unknown.text.replace(unknown.body.detail, foreign.body.detail));
    expectProblem(foreign, 400, 'BAD_REQUEST');
  });

  it('after dropped connections, has every event once, in the stream’s order', async () => {
    const writer = await t.signedInClient();
    const url = new URL(t.url);
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
    const reader = follow(`http://127.0.0.1:${proxy.port}`, '', asUser(writer));
    await reader.opened();
    const deck = (await writer.post('/api/decks', { name: 'Dropped' })).body;
    for (let round = 0; round < 4; round++) {
      await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          writer.post(`/api/decks/${deck.id}/slides`, { title: `${round}.${i}` }),
        ),
      );
      await eventually(() => reader.messages.length > round * 8);
      proxy.cut();
    }
    // All but the sign-in, which committed before the stream opened.
    const all = (await logIds(writer.organizationId)).slice(1);
    await eventually(() => reader.messages.length >= all.length, 20_000);
    expect(reader.opens).toBeGreaterThan(1);
    expect(reader.ids).toEqual(all);
    reader.close();
    await proxy.stop();
  });
});

describe('who sees what', () => {
  it('never shows another organization’s events, nor events above the caller’s access', async () => {
    const otherOrganization = await t.signedInClient();
    const admin = (await owner.post('/api/api-keys', { name: 'Admin key', access: 'admin' })).body.secret;
    const asOwner = follow(t.url, '', asUser(owner));
    const asKey = follow(t.url, '', { authorization: `Bearer ${admin}` });
    const stranger = follow(t.url, '', asUser(otherOrganization));
    await Promise.all([asOwner.opened(), asKey.opened(), stranger.opened()]);
    await owner.post('/api/users', {
      email: `m-${randomUUID()}@x.test`,
      name: 'M',
      role: 'member',
      password: 'a-long-password',
    });
    await owner.post('/api/api-keys', { name: 'Another', access: 'read' });
    const sentinel = (await owner.post('/api/decks', { name: 'Sentinel' })).body;
    await eventually(() => asKey.messages.some((m) => m.data.aggregateId === sentinel.id));
    await eventually(() => asOwner.messages.some((m) => m.data.aggregateId === sentinel.id));
    // The owner sees all three; an admin key the user's, not the key's; the other organization nothing.
    expect(asOwner.messages.map((m) => m.type)).toEqual(['user.created', 'api_key.created', 'deck.created']);
    expect(asKey.messages.map((m) => m.type)).toEqual(['user.created', 'deck.created']);
    expect(stranger.messages).toEqual([]);
    for (const reader of [asOwner, asKey, stranger]) reader.close();
  });

  it('hides from a member what the log hides, and refuses to resume from such an event', async () => {
    const org = `Org ${randomUUID()}`;
    const boss = await t.signedInClient(org);
    const member = await t.signedInClient(org, 'member');
    const reader = follow(t.url, '', asUser(member));
    await reader.opened();
    const key = (await boss.post('/api/api-keys', { name: 'Hidden', access: 'read' })).body.apiKey;
    await boss.post('/api/users', {
      email: `u-${randomUUID()}@x.test`,
      name: 'U',
      role: 'member',
      password: 'a-long-password',
    });
    const deck = (await boss.post('/api/decks', { name: 'Seen' })).body;
    await eventually(() => reader.messages.some((m) => m.data.aggregateId === deck.id));
    expect(reader.messages.map((m) => m.type)).toEqual(['deck.created']);
    const [hidden] = (await boss.get(`/api/notifications/events?aggregateId=${key.id}`)).body.events;
    expectProblem(
      await member.get(`/api/notifications/events/stream?lastEventId=${hidden.id}`),
      400,
      'BAD_REQUEST',
    );
    reader.close();
  });
});

describe('role changes', () => {
  it('apply to an open stream: a member made admin sees users’ events from then on', async () => {
    const org = `Org ${randomUUID()}`;
    const boss = await t.signedInClient(org);
    const member = await t.signedInClient(org, 'member');
    const reader = follow(t.url, '', asUser(member));
    await reader.opened();
    const addUser = () =>
      boss.post('/api/users', {
        email: `r-${randomUUID()}@x.test`,
        name: 'R',
        role: 'member',
        password: 'a-long-password',
      });
    await addUser();
    await boss.patch(`/api/users/${member.userId}`, { role: 'admin' });
    // Until the stream's next check of its caller, users' events stay hidden; then they arrive.
    await eventually(async () => {
      await addUser();
      const sentinel = (await boss.post('/api/decks', { name: 'Sentinel' })).body;
      await eventually(() => reader.messages.some((m) => m.data.aggregateId === sentinel.id));
      return reader.messages.some((m) => m.type === 'user.created');
    });
    // The user added before the change (and the change itself, seen before the check) never arrived.
    expect(reader.messages[0]!.type).toBe('deck.created');
    reader.close();
  });
});

describe('limits', () => {
  it('ends a stream within the check interval once its session or key is revoked', async () => {
    const user = await t.signedInClient();
    const key = (await user.post('/api/api-keys', { name: 'Soon revoked', access: 'read' })).body;
    const bySession = follow(t.url, '', asUser(user));
    const byKey = follow(t.url, '', { authorization: `Bearer ${key.secret}` });
    await Promise.all([bySession.opened(), byKey.opened()]);
    await user.delete(`/api/api-keys/${key.apiKey.id}`);
    await user.post('/api/auth/logout');
    // Each ends; its client reconnects and is refused.
    await eventually(() => bySession.refusals.includes(401) && byKey.refusals.includes(401), 10_000);
    bySession.close();
    byKey.close();
  });

  it('answers 429 past STREAMS_PER_CALLER, and takes a new stream once one closed', async () => {
    const user = await t.signedInClient();
    const open = Array.from({ length: 5 }, () => follow(t.url, '', asUser(user)));
    await Promise.all(open.map((reader) => reader.opened()));
    const refused = expectProblem(
      await user.get('/api/notifications/events/stream'),
      429,
      'TOO_MANY_REQUESTS',
    );
    expect(refused.detail).toMatch(/At most 5 streams/);
    // Another caller is not counted with this one.
    const other = follow(t.url, '', asUser(await t.signedInClient()));
    await other.opened();
    open[0]!.close();
    const again = await eventually(async () => {
      const reader = follow(t.url, '', asUser(user));
      await reader.opened().catch(() => reader.close());
      return reader.source.readyState === reader.source.OPEN ? reader : null;
    });
    expect(again.source.readyState).toBe(again.source.OPEN);
    for (const reader of [...open, other, again]) reader.close();
  });

  it('holds no stream for a client gone before it opened: the caller keeps all of its streams', async () => {
    const user = await t.signedInClient();
    // Each connection sends its request and leaves at once, while the service still looks the session up.
    const { port } = new URL(t.url);
    for (let n = 0; n < 20; n += 1) {
      await new Promise<void>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.end(
            `GET /api/notifications/events/stream HTTP/1.1\r\nHost: x\r\nCookie: ${user.cookieHeader}\r\n\r\n`,
          );
          socket.destroy();
          resolve();
        });
      });
    }
    // Had any been kept, the caller could never hold its five streams again.
    const five = await eventually(async () => {
      const readers = Array.from({ length: 5 }, () => follow(t.url, '', asUser(user)));
      const opened = await Promise.all(
        readers.map((reader) =>
          reader.opened().then(
            () => true,
            () => false,
          ),
        ),
      );
      if (opened.every(Boolean)) return readers;
      for (const reader of readers) reader.close();
      return null;
    }, 15_000);
    for (const reader of five) reader.close();
  });

  it('disconnects a consumer that stops reading, holding no more than its buffer', async () => {
    const user = await t.signedInClient();
    const stream = rawStream(`${t.url}/api/notifications/events/stream`, asUser(user));
    const answer = await stream.opened;
    expect(answer.statusCode).toBe(200);
    stream.pause();
    // This file's other streams are closed by now: this one is the instance's last.
    await eventually(() => t.app.edge.liveEvents!.openStreams === 1);
    const heapBefore = liveHeap();
    // 40 MB of events (synthetic payloads of 100 KB, written by SQL in batches): far past what the
    // socket buffers and STREAM_BUFFER_BYTES hold.
    const connection = t.app.database.orm.em.getConnection();
    let written = 0;
    while (written < 400) {
      await connection.execute(
        `insert into event (id, organization_id, event_type, aggregate_type, aggregate_id, occurred_at, payload)
         select gen_random_uuid(), ?, 'deck.updated', 'deck', gen_random_uuid()::text, now(),
                jsonb_build_object('name', repeat('x', 100000), 'n', n)
           from generate_series(1, 20) n`,
        [user.organizationId],
      );
      written += 20;
    }
    // Cut off by the server, though the client could not tell while it read nothing: once it reads
    // again, it finds what the sockets held, then the end (had it not been cut, it would stream on).
    await eventually(() => t.app.edge.liveEvents!.openStreams === 0, 30_000);
    stream.resume();
    await stream.ended;
    // The service runs in this process: its heap, after a collection, is what the stream left.
    expect(liveHeap() - heapBefore).toBeLessThan(8 * 1024 * 1024);
  }, 60_000);

  it('sends a keep-alive comment at least every 15 s', async () => {
    const stream = rawStream(`${t.url}/api/notifications/events/stream`, asUser(owner));
    const answer = await stream.opened;
    expect(answer.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    let text = '';
    answer.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    await eventually(() => text.includes(': keep-alive\n\n'), 16_000);
    stream.destroy();
  }, 20_000);
});

describe('commit order', () => {
  it('does not skip an event whose transaction commits after a later one’s', async () => {
    const reader = follow(t.url, '?eventType=deck.*', asUser(owner));
    await reader.opened();
    const insert = `insert into event (id, organization_id, event_type, aggregate_type, aggregate_id, occurred_at, payload)
                    values ($1::uuid, $2, 'deck.updated', 'deck', $1::text, now(), '{}'::jsonb)`;
    const early = randomUUID();
    const late = randomUUID();
    const slow = await openTransaction(t.databaseUrl);
    await slow.query(insert, [early, owner.organizationId]);
    const fast = await openTransaction(t.databaseUrl);
    await fast.query(insert, [late, owner.organizationId]);
    await fast.commit();
    await slow.commit();
    const sentinel = (await owner.post('/api/decks', { name: 'After both' })).body;
    await eventually(() => reader.messages.some((m) => m.data.aggregateId === sentinel.id));
    expect(reader.ids.filter((id) => id === early || id === late)).toEqual([early, late]);
    reader.close();
  });
});

describe('two instances on one database', () => {
  it('a change made through one reaches a stream held by the other', async () => {
    const second = await startTestApp({}, { databaseUrl: t.databaseUrl });
    try {
      const key = (await owner.post('/api/api-keys', { name: 'Elsewhere', access: 'read' })).body.secret;
      const reader = follow(second.url, '?eventType=deck.created', { authorization: `Bearer ${key}` });
      await reader.opened();
      const deck = (
        await keyClient(
          t.url,
          (
            await owner.post('/api/api-keys', { name: 'W', access: 'write' })
          ).body.secret,
        ).post('/api/decks', { name: 'Across' })
      ).body;
      await eventually(() => reader.messages.some((m) => m.data.aggregateId === deck.id));
      reader.close();
    } finally {
      await second.close();
    }
  });
});
