import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../entities/ids.ts';
import { expectProblem, type HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

let t: TestApp;
let user: HttpClient & { organizationId: string; userId: string };
let other: HttpClient & { organizationId: string };
const base = Date.parse('2026-01-01T00:00:00.000Z');
const at = (minute: number) => new Date(base + minute * 60_000).toISOString();

/** 30 events at known times: 3 aggregates × 10 minutes, three event types. */
beforeAll(async () => {
  t = await startTestApp();
  user = await t.signedInClient('Log Org');
  other = await t.signedInClient('Other Org');
  // The log's filters and pages are tested on rows seeded by SQL with synthetic payloads
  // ({minute}); real events and their documented payloads: openapi-webhooks.test.ts.
  user.uncheckedBecause = other.uncheckedBecause = 'events seeded by SQL with synthetic payloads';
  const rows: unknown[] = [];
  for (let minute = 0; minute < 10; minute++) {
    for (const [aggregateType, aggregateId, eventType] of [
      ['deck', 'deck-a', 'deck.updated'],
      ['slide', 'slide-a', 'slide.created'],
      ['slide', 'slide-b', 'slide.deleted'],
    ]) {
      rows.push(
        newId(),
        user.organizationId,
        eventType,
        aggregateType,
        aggregateId,
        at(minute),
        JSON.stringify({ minute }),
      );
    }
  }
  const values = Array.from({ length: rows.length / 7 }, () => '(?, ?, ?, ?, ?, ?, ?, now())').join(', ');
  await t.app.database.orm.em
    .getConnection()
    .execute(
      `insert into event (id, organization_id, event_type, aggregate_type, aggregate_id, occurred_at, payload, dispatched_at) values ${values}`,
      rows,
    );
});
afterAll(() => t.close());

const query = (params: Record<string, string | number>) =>
  user.get(
    `/api/notifications/events?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`,
  );

/** Only the seeded events (the user's own login event is in the log too). */
const seeded = { since: at(0), until: at(10) };

describe('GET /api/notifications/events', () => {
  it('answers newest first, 50 by default, with the total', async () => {
    const response = await query(seeded);
    expect(response.status).toBe(200);
    expect(response.body.pagination).toEqual({ total: 30, limit: 50, offset: 0, nextAfter: null });
    const times = response.body.events.map((e: { occurredAt: string }) => e.occurredAt);
    expect(times).toEqual([...times].sort().reverse());
    expect(Object.keys(response.body.events[0]).sort()).toEqual(
      ['aggregateId', 'aggregateType', 'eventType', 'id', 'occurredAt', 'payload'].sort(),
    );
    expect(response.body.events[0].payload).toEqual({ minute: 9 });
  });

  it.each([
    [{ eventType: 'slide.created' }, 10],
    [{ aggregateType: 'slide' }, 20],
    [{ aggregateId: 'slide-b' }, 10],
    [{ aggregateType: 'slide', aggregateId: 'slide-a' }, 10],
    [{ eventType: 'deck.updated', aggregateType: 'slide' }, 0],
  ])('filters by %j (total %i)', async (filter, total) => {
    const response = await query({ ...seeded, ...filter });
    expect(response.body.pagination.total).toBe(total);
    expect(response.body.events).toHaveLength(total);
    for (const event of response.body.events) expect(event).toMatchObject(filter);
  });

  it('refuses an event type that is not one of the catalogue, a wildcard of one, or *', async () => {
    for (const eventType of ['no.such', 'slide.', 'slide*', '**']) {
      const problem = expectProblem(await query({ ...seeded, eventType }), 400, 'BAD_REQUEST');
      expect(problem.issues?.map((issue) => issue.path)).toEqual([['eventType']]);
    }
  });

  it('includes since and excludes until', async () => {
    const response = await query({ since: at(3), until: at(5), aggregateId: 'deck-a' });
    expect(response.body.events.map((e: { payload: { minute: number } }) => e.payload.minute)).toEqual([
      4, 3,
    ]);
    expect(response.body.pagination.total).toBe(2);
    const withOffset = await query({
      since: '2026-01-01T01:03:00+01:00',
      until: at(5),
      aggregateId: 'deck-a',
    });
    expect(withOffset.body.pagination.total).toBe(2);
  });

  it('pages with limit and offset; the total stays the count under the filters', async () => {
    const pages = [];
    for (let offset = 0; offset < 30; offset += 7) {
      const response = await query({ ...seeded, aggregateType: 'slide', limit: 7, offset });
      const last = response.body.events.at(-1)?.id;
      expect(response.body.pagination).toEqual({
        total: 20,
        limit: 7,
        offset,
        nextAfter: offset + 7 < 20 ? last : null,
      });
      pages.push(...response.body.events.map((e: { id: string }) => e.id));
    }
    expect(pages).toHaveLength(20);
    expect(new Set(pages).size).toBe(20);
    const past = await query({ ...seeded, offset: 100 });
    expect(past.body).toEqual({
      events: [],
      pagination: { total: 30, limit: 50, offset: 100, nextAfter: null },
    });
  });

  it('pages with after: the same events as offset pages, nextAfter null on the last page', async () => {
    const byOffset = (await query({ ...seeded, aggregateType: 'slide', limit: 100 })).body.events;
    const pages: { id: string }[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page++) {
      const response = await query({
        ...seeded,
        aggregateType: 'slide',
        limit: 7,
        ...(after ? { after } : {}),
      });
      expect(response.body.pagination.total).toBe(20);
      pages.push(...response.body.events);
      after = response.body.pagination.nextAfter;
      if (after === null) break;
      expect(after).toBe(response.body.events.at(-1).id);
    }
    expect(after).toBeNull();
    expect(pages).toEqual(byOffset);
    // Exactly a page left: the page that ends the log says so.
    const lastButOne = byOffset[byOffset.length - 8]!.id;
    const last = await query({ ...seeded, aggregateType: 'slide', limit: 7, after: lastButOne });
    expect(last.body.events).toEqual(byOffset.slice(-7));
    expect(last.body.pagination.nextAfter).toBeNull();
  });

  it('refuses after with a non-zero offset, and an after the caller cannot see, with 400', async () => {
    const [first] = (await query({ ...seeded, limit: 1 })).body.events;
    const both = expectProblem(await query({ after: first.id, offset: 7 }), 400, 'BAD_REQUEST');
    expect(both.issues?.map((i) => i.path.join('.'))).toEqual(['offset']);
    expect((await query({ after: first.id, offset: 0 })).status).toBe(200);
    const unknown = expectProblem(await query({ after: newId() }), 400, 'BAD_REQUEST');
    expect(unknown.issues?.map((i) => i.path.join('.'))).toEqual(['after']);
    const foreign = await other.get(`/api/notifications/events?after=${first.id}`);
    expect(expectProblem(foreign, 400, 'BAD_REQUEST').issues).toEqual(unknown.issues);
    expectProblem(await query({ after: 'not-a-uuid' }), 400, 'BAD_REQUEST');
  });

  it.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: 101 }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ limit: 2.5 }, 'limit'],
    [{ offset: -1 }, 'offset'],
    [{ since: 'yesterday' }, 'since'],
    [{ until: '2026-13-01T00:00:00Z' }, 'until'],
    [{ since: at(5), until: at(5) }, 'until'],
  ])('answers %j with 400 naming %s', async (params, field) => {
    const problem = expectProblem(await query(params as Record<string, string>), 400, 'BAD_REQUEST');
    expect(problem.issues?.map((i) => i.path.join('.'))).toContain(field);
  });

  it('shows only the caller’s organization’s events', async () => {
    const response = await other.get('/api/notifications/events?limit=100');
    expect(response.body.events.map((e: { eventType: string }) => e.eventType)).toEqual(['user.logged_in']);
    expect(response.body.pagination.total).toBe(1);
  });

  it('leaves out the events of what the caller may not list: users below admin, API keys below owner', async () => {
    const owner = await t.signedInClient('Listing Org', 'owner');
    const admin = await t.signedInClient('Listing Org', 'admin');
    const member = await t.signedInClient('Listing Org', 'member');
    await owner.post('/api/decks', { name: 'Seen by all' });
    const key = (await owner.post('/api/api-keys', { name: 'reader', access: 'read' })).body.secret as string;
    const reader = t.client();
    const asReader = (path: string) =>
      reader.request('GET', path, { headers: { authorization: `Bearer ${key}` } });
    const hour = 3_600_000;
    // No filter (per-type counters); a range whose whole hours (hourly counters) hold the events; a type.
    const filters = [
      '',
      `since=${new Date(Date.now() - 3 * hour).toISOString()}&until=${new Date(Date.now() + 2 * hour).toISOString()}`,
      'aggregateType=user',
      'eventType=deck.created',
    ];
    const seen = async (get: (path: string) => Promise<{ body: any }>) => {
      const answers = [];
      for (const filter of filters) {
        const { body } = await get(`/api/notifications/events?limit=100&${filter}`);
        // The total agrees with the rows under every filter.
        expect(body.pagination.total, filter).toBe(body.events.length);
        answers.push(body.events.map((e: { aggregateType: string }) => e.aggregateType));
      }
      return new Set(answers.flat());
    };
    expect(await seen((path) => owner.get(path))).toEqual(new Set(['deck', 'user', 'api_key']));
    expect(await seen((path) => admin.get(path))).toEqual(new Set(['deck', 'user']));
    expect(await seen((path) => member.get(path))).toEqual(new Set(['deck']));
    expect(await seen(asReader)).toEqual(new Set(['deck']));
  });

  it('shows the events the routes write, with their payloads', async () => {
    const deck = (await user.post('/api/decks', { name: 'Logged' })).body;
    const response = await query({ aggregateId: deck.id });
    expect(response.body.events).toEqual([
      {
        id: expect.any(String),
        eventType: 'deck.created',
        aggregateType: 'deck',
        aggregateId: deck.id,
        occurredAt: expect.any(String),
        payload: { ...deck, deckId: deck.id, actor: { type: 'user', id: user.userId } },
      },
    ]);
  });
});
