/**
 * `npm run bench:events`: loads 1,000,000 events into one organization (plus 200,000 in
 * another) and times first pages of GET /api/notifications/events through the procedure,
 * with the total count, for each filter. Uses DATABASE_URL when set, otherwise a
 * throw-away embedded PostgreSQL.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../server/config.ts';
import { openDatabase } from '../server/database.ts';
import { createInProcessCaller } from '../server/in-process.ts';
import { createLogger } from '../server/logger.ts';
import { createServices } from '../server/services.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);

const dataDir = process.env.DATABASE_URL ? undefined : await mkdtemp(path.join(os.tmpdir(), 'deck-bench-'));
const config = loadConfig({
  ...process.env,
  NOTIFICATIONS_ENABLED: 'false',
  ...(dataDir ? { DATA_DIR: dataDir, EMBEDDED_POSTGRES_PORT: '5498' } : {}),
});
const logger = createLogger('warn');
const database = await openDatabase(config, logger);
const services = createServices(config, logger);

try {
  const operator = createInProcessCaller(database.orm, services);
  const suffix = Date.now().toString(36);
  const ids = await operator.admin.createUser({
    organization: `Bench ${suffix}`,
    email: `b-${suffix}@x.test`,
    password: 'bench-password',
  });
  const noise = await operator.admin.createUser({
    organization: `Noise ${suffix}`,
    email: `n-${suffix}@x.test`,
    password: 'bench-password',
  });
  const connection = database.orm.em.getConnection();

  const load = async (organizationId: string, count: number) => {
    // 10 event types over 5 aggregate types, 10,000 aggregates, one event a second going back in time.
    await connection.execute(
      `insert into event (id, organization_id, event_type, aggregate_type, aggregate_id, deck_id, occurred_at, payload, dispatched_at)
       select gen_random_uuid(), ?,
              (array['deck.created','deck.updated','slide.created','slide.updated','slide.deleted',
                     'faq.created','faq.updated','action_config.created','image.uploaded','user.logged_in'])[1 + n % 10],
              (array['deck','deck','slide','slide','slide','faq','faq','action_config','image','user'])[1 + n % 10],
              'agg-' || (n % 10000), null, now() - make_interval(secs => n), jsonb_build_object('n', n), now()
         from generate_series(1, ?) as n`,
      [organizationId, count],
    );
  };
  let started = performance.now();
  await load(ids.organizationId, EVENTS);
  await load(noise.organizationId, Math.round(EVENTS / 5));
  await connection.execute('vacuum analyze event');
  console.log(
    `loaded ${EVENTS.toLocaleString('en')} + ${Math.round(EVENTS / 5).toLocaleString('en')} events in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  const caller = createInProcessCaller(database.orm, services, { ...ids, role: 'owner' });
  const since = new Date(Date.now() - 3 * 24 * 3600 * 1000).toISOString();
  const until = new Date(Date.now() - 2 * 24 * 3600 * 1000).toISOString();
  const cases: [string, Record<string, unknown>][] = [
    ['no filter', {}],
    ['eventType=slide.created', { eventType: 'slide.created' }],
    ['aggregateType=slide', { aggregateType: 'slide' }],
    ['aggregateId=agg-42', { aggregateId: 'agg-42' }],
    ['since..until (one day)', { since, until }],
    ['eventType + one day', { eventType: 'deck.updated', since, until }],
    ['aggregateType=deck, offset 5000', { aggregateType: 'deck', offset: 5000 }],
  ];
  console.log(`first page (limit 50) with total, ${RUNS} runs each, ms:`);
  for (const [label, filter] of cases) {
    const timings: number[] = [];
    let total = 0;
    for (let run = 0; run < RUNS + 2; run++) {
      started = performance.now();
      const page = await caller.notifications.events({ limit: 50, offset: 0, ...filter } as never);
      const elapsed = performance.now() - started;
      total = page.pagination.total;
      if (run >= 2) timings.push(elapsed);
    }
    timings.sort((a, b) => a - b);
    const q = (p: number) =>
      timings[Math.min(timings.length - 1, Math.floor(p * timings.length))]!.toFixed(1);
    console.log(
      `  ${label.padEnd(34)} total ${String(total).padStart(9)}   median ${q(0.5).padStart(6)}   p95 ${q(0.95).padStart(6)}`,
    );
  }
} finally {
  services.mailer?.close();
  await database.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}
