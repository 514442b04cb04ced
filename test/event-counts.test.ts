import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../adapters/secret-box.ts';
import { newId } from '../entities/ids.ts';
import { migrationsFor } from '../migrations/index.ts';
import { createOrmConfig } from '../mikro-orm.config.ts';
import type { HttpClient } from './helpers/http-client.ts';
import { insertOrganization, migrateToJustBefore } from './helpers/older-database.ts';
import { createTestDatabase, startTestApp, type TestApp } from './helpers/test-app.ts';

// Only their names and order are read here; the box is never asked to seal.
const migrations = migrationsFor(createSecretBox(randomBytes(32).toString('base64url')));

/**
 * `pagination.total` of the event log comes from counters (`event_count`, and
 * `event_count_by_hour` for time ranges) unless an aggregate id is given. These tests hold it to `count(*)` through every way events are
 * written or removed: the app's own writes, bulk SQL, concurrent transactions, rollbacks,
 * deletes, an organization's deletion, a truncate, and events that predate the counters.
 */
let t: TestApp;
let a: HttpClient & { organizationId: string };
let b: HttpClient & { organizationId: string };

beforeAll(async () => {
  t = await startTestApp();
  a = await t.signedInClient('Counted A');
  b = await t.signedInClient('Counted B');
  // Counts are tested on rows bulk-inserted by SQL with synthetic payloads; real events and their
  // documented payloads: openapi-webhooks.test.ts.
  a.uncheckedBecause = b.uncheckedBecause = 'events seeded by SQL with synthetic payloads';
});
afterAll(() => t.close());

const sql = <T>(query: string, params: unknown[] = []) =>
  t.app.database.orm.em.getConnection().execute<T[]>(query, params);

/** The filters whose totals come from the counters. */
const FILTERS: Record<string, string>[] = [
  {},
  { eventType: 'deck.created' },
  { eventType: 'slide.created' },
  { aggregateType: 'deck' },
  { aggregateType: 'slide' },
  { eventType: 'deck.created', aggregateType: 'deck' },
  { eventType: 'deck.created', aggregateType: 'slide' },
];

/** Every counted filter's total, as the API answers it and as `count(*)` finds it. */
async function totals(user: HttpClient & { organizationId: string }) {
  const answered: number[] = [];
  const counted: number[] = [];
  for (const filter of FILTERS) {
    const response = await user.get(`/api/notifications/events?${new URLSearchParams(filter)}`);
    expect(response.status).toBe(200);
    answered.push(response.body.pagination.total);
    const conditions = Object.entries(filter).map(
      ([key, value]) => `${key === 'eventType' ? 'event_type' : 'aggregate_type'} = '${value}'`,
    );
    const [row] = await sql<{ n: number }>(
      `select count(*)::int as n from event where ${['organization_id = ?', ...conditions].join(' and ')}`,
      [user.organizationId],
    );
    counted.push(row!.n);
  }
  return { answered, counted };
}

async function expectExact(user: HttpClient & { organizationId: string }) {
  const { answered, counted } = await totals(user);
  expect(answered).toEqual(counted);
  return counted;
}

/** `n` events of one type for one organization, in one statement, on `client` or the app's pool. */
async function insertEvents(organizationId: string, eventType: string, n: number, client?: pg.Client) {
  const query = `insert into event (id, organization_id, event_type, aggregate_type, aggregate_id, occurred_at, payload, dispatched_at)
     select gen_random_uuid(), ?, ?, split_part(?, '.', 1), 'agg-' || g, now(), '{}', now()
       from generate_series(1, ?::int) g`;
  const params = [organizationId, eventType, eventType, n];
  let i = 0;
  if (client)
    await client.query(
      query.replaceAll('?', () => `$${++i}`),
      params,
    );
  else await sql(query, params);
}

async function connect(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  return client;
}

describe('event log totals from counters', () => {
  it('stay exact through the app’s own writes, concurrent ones of two organizations included', async () => {
    const before = await expectExact(a);
    const create = (user: HttpClient, i: number) => user.post('/api/decks', { name: `Deck ${i}` });
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? create(a, i) : create(b, i))),
    );
    for (const response of created) expect(response.status).toBe(201);
    const deckOfA = created[0]!.body.id;
    expect((await a.post(`/api/decks/${deckOfA}/slides`, { title: 'One' })).status).toBe(201);
    expect((await a.patch(`/api/decks/${deckOfA}`, { name: 'Renamed' })).status).toBe(200);
    expect((await a.delete(`/api/decks/${deckOfA}`)).status).toBe(200);

    const after = await expectExact(a);
    expect(after[0]).toBe(before[0]! + 6 + 3); // six decks created; a slide, an update, a delete
    expect(after[1]).toBe(before[1]! + 6);
    await expectExact(b);
  });

  it('stay exact through bulk SQL inserts and deletes (a retention sweep, say)', async () => {
    const before = await expectExact(a);
    await insertEvents(a.organizationId, 'slide.created', 500);
    await insertEvents(b.organizationId, 'slide.created', 70);
    await expectExact(a);
    await sql(
      `delete from event where id in (select id from event where organization_id = ? and event_type = 'slide.created' limit 120)`,
      [a.organizationId],
    );
    expect((await expectExact(a))[2]).toBe(before[2]! + 500 - 120);
    await expectExact(b);
  });

  it('lets concurrent writers of one organization proceed without waiting on each other', async () => {
    const writers = await Promise.all(Array.from({ length: 4 }, connect));
    try {
      // Four transactions of the same organization, same event type, all open at once: with a
      // single counter row the second would wait for the first to commit (lock_timeout: fail).
      for (const client of writers) {
        await client.query("begin; set local lock_timeout = '2s'");
      }
      for (const [i, client] of writers.entries()) {
        await insertEvents(a.organizationId, 'deck.created', 10 + i, client);
      }
      // Commit some, roll one back: only committed events are counted.
      await writers[0]!.query('commit');
      await writers[1]!.query('rollback');
      await writers[2]!.query('commit');
      await writers[3]!.query('commit');
    } finally {
      await Promise.all(writers.map((client) => client.end()));
    }
    await expectExact(a);

    // Transactions at once as many as the pool holds, each writing for one or two organizations.
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        t.app.database.orm.em.fork().transactional((em) =>
          em.execute(
            `insert into event (id, organization_id, event_type, aggregate_type, aggregate_id, occurred_at, payload, dispatched_at)
               values (?, ?, ?, ?, 'concurrent', now(), '{}', now()), (?, ?, 'slide.created', 'slide', 'concurrent', now(), '{}', now())`,
            [
              newId(),
              a.organizationId,
              'deck.created',
              'deck',
              newId(),
              i % 2 ? a.organizationId : b.organizationId,
            ],
          ),
        ),
      ),
    );
    await expectExact(a);
    await expectExact(b);
  });

  it('give exact totals of time ranges: whole hours from the hourly counters, partial ones counted', async () => {
    // Events of a far-off day at known instants: on the hour, a microsecond either side, and between.
    const day = '2031-03-04';
    const instants = ['00:00:00', '00:59:59.999999', '01:00:00', '01:00:00.000001', '01:30:00', '02:00:00'];
    for (const hour of ['03', '04', '05', '06'])
      instants.push(`${hour}:00:00`, `${hour}:15:00`, `${hour}:59:59`);
    for (const organizationId of [a.organizationId, b.organizationId]) {
      await sql(
        `insert into event (id, organization_id, event_type, aggregate_type, aggregate_id, occurred_at, payload, dispatched_at)
         select gen_random_uuid(), ?, 'slide.updated', 'slide', 'timed', (? || ' ' || t || '+00')::timestamptz, '{}', now()
           from unnest(?::text[]) t`,
        [organizationId, day, `{${instants.join(',')}}`],
      );
    }
    await sql(`delete from event where organization_id = ? and occurred_at = '${day} 04:15:00+00'`, [
      a.organizationId,
    ]);
    const at = (time: string) => `${day}T${time}Z`;
    const ranges: Record<string, string>[] = [
      { since: at('00:00:00'), until: at('07:00:00') },
      { since: at('00:00:00.000001'), until: at('06:59:59') },
      { since: at('00:59:59.999999'), until: at('01:00:00.000001') },
      { since: at('01:00:00'), until: at('01:00:00.001') },
      { since: at('01:10:00'), until: at('01:50:00') },
      { since: at('01:10:00'), until: at('04:15:00') },
      { since: at('03:00:00'), until: at('05:00:00') },
      { since: `${day}T05:30:00+05:30`, until: `${day}T10:45:00+05:45` },
      { since: at('03:59:59') },
      { until: at('01:00:00.000001') },
    ];
    for (const user of [a, b]) {
      for (const range of ranges) {
        const response = await user.get(`/api/notifications/events?${new URLSearchParams(range)}`);
        expect({
          range,
          status: response.status,
          body: response.status === 200 ? null : response.body,
        }).toEqual({ range, status: 200, body: null });
        const [row] = await sql<{ n: number }>(
          `select count(*)::int as n from event where organization_id = ?
              and occurred_at >= coalesce(?::timestamptz, '-infinity') and occurred_at < coalesce(?::timestamptz, 'infinity')`,
          [user.organizationId, range.since ?? null, range.until ?? null],
        );
        expect({ range, total: response.body.pagination.total }).toEqual({ range, total: row!.n });
      }
    }
  });

  it('refuse to move an event between the keys they count by', async () => {
    await expect(
      sql(
        `update event set event_type = 'deck.updated' where organization_id = ? and event_type = 'deck.created'`,
        [a.organizationId],
      ),
    ).rejects.toThrow(/never change/);
    await sql(`update event set dispatched_at = now() where organization_id = ?`, [a.organizationId]);
    await expectExact(a);
  });

  it('go with their organization, and leave the others’ as they are', async () => {
    const other = await t.signedInClient('Counted C');
    other.uncheckedBecause = 'events seeded by SQL with synthetic payloads';
    await insertEvents(other.organizationId, 'slide.created', 30);
    await sql('delete from organization where id = ?', [other.organizationId]);
    const [left] = await sql<{ n: number }>(
      `select (select count(*) from event_count where organization_id = ?)
            + (select count(*) from event_count_by_hour where organization_id = ?) as n`,
      [other.organizationId, other.organizationId],
    );
    expect(Number(left!.n)).toBe(0);
    await expectExact(a);
    await expectExact(b);
  });

  it('are emptied by a truncate of the log', async () => {
    await sql('truncate event cascade');
    const [hourly] = await sql<{ n: number }>('select count(*)::int as n from event_count_by_hour');
    expect(hourly!.n).toBe(0);
    expect(await expectExact(a)).toEqual(FILTERS.map(() => 0));
    await insertEvents(a.organizationId, 'deck.created', 3);
    expect((await expectExact(a))[0]).toBe(3);
  });
});

describe('the event-counts migration', () => {
  it('leaves nothing for a generated migration to change (its triggers are declared on the entity)', async () => {
    expect(await t.app.database.orm.schema.getUpdateSchemaSQL({ wrap: false })).toBe('');
  });

  it('counts the events that were there before it', async () => {
    const url = await createTestDatabase();
    const orm = await MikroORM.init(createOrmConfig(url, { debug: false }));
    try {
      await migrateToJustBefore(orm, migrations, '_event_counts');
      const organizations = [newId(), newId()];
      for (const [i, id] of organizations.entries()) {
        await insertOrganization(orm, id, `Before ${i}`);
        await orm.em.getConnection().execute(
          `insert into event (id, organization_id, event_type, aggregate_type, aggregate_id, occurred_at, payload, dispatched_at)
           select gen_random_uuid(), ?, (array['deck.created','slide.created','slide.deleted'])[1 + g % 3],
                  (array['deck','slide','slide'])[1 + g % 3], 'agg', now() - make_interval(mins => g * 7), '{}', now()
             from generate_series(1, ?::int) g`,
          [id, 100 + i * 50],
        );
      }
      await orm.migrator.up();
      const rows = await orm.em
        .getConnection()
        .execute<{ organization_id: string; n: number }[]>(
          `select organization_id, sum(count)::int as n from event_count group by 1 order by n`,
        );
      expect(rows).toEqual([
        { organization_id: organizations[0], n: 100 },
        { organization_id: organizations[1], n: 150 },
      ]);
      const [slides] = await orm.em
        .getConnection()
        .execute<{ n: number }[]>(
          `select sum(count)::int as n from event_count where organization_id = ? and aggregate_type = 'slide'`,
          [organizations[1]],
        );
      expect(slides!.n).toBe(100);
      const [hours] = await orm.em.getConnection().execute<{ differing: number }[]>(
        `select count(*)::int as differing from
           (select organization_id, hour, sum(count) as n from event_count_by_hour group by 1, 2) c
           full join (select organization_id, date_trunc('hour', occurred_at, 'UTC') as hour, count(*) as n
                        from event group by 1, 2) e using (organization_id, hour)
          where c.n is distinct from e.n`,
      );
      expect(hours!.differing).toBe(0);
    } finally {
      await orm.close(true);
    }
  });
});
