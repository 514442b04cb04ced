/**
 * `npm run bench:events`: loads 1,000,000 events into one organization (plus 200,000 in
 * another) and times first pages of GET /api/notifications/events through the procedure,
 * total count included, for each filter, and the page at depth 500,000 through `after` (a cursor
 * page costs what the first one does). BENCH_TRACE=1 prints every timing (p95 of 20 runs is
 * their maximum: one stall of a shared machine shows there).
 */
import { summarise, withBenchDatabase } from './bench-setup.ts';
import { startProgress } from './progress.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const BATCH = 50_000;

await withBenchDatabase(async ({ orm, newOrganization }) => {
  const measured = await newOrganization('Events');
  const noise = await newOrganization('Noise');
  const connection = orm.em.getConnection();

  // 10 event types over 5 aggregate types, 10,000 aggregates, one event a second going back in
  // time; in batches, so that the operator sees the load advance.
  const load = (organizationId: string, from: number, to: number) =>
    connection.execute(
      `insert into event (id, organization_id, event_type, aggregate_type, aggregate_id, deck_id, occurred_at, payload, dispatched_at)
       select gen_random_uuid(), ?,
              (array['deck.created','deck.updated','slide.created','slide.updated','slide.deleted',
                     'faq.created','faq.updated','action_config.created','image.uploaded','user.logged_in'])[1 + n % 10],
              (array['deck','deck','slide','slide','slide','faq','faq','action_config','image','user'])[1 + n % 10],
              'agg-' || (n % 10000), null, now() - make_interval(secs => n), jsonb_build_object('n', n), now()
         from generate_series(?::int, ?::int) as n`,
      [organizationId, from, to],
    );
  const noiseEvents = Math.round(EVENTS / 5);
  const loadStarted = performance.now();
  const progress = startProgress('loading events', EVENTS + noiseEvents);
  let loaded = 0;
  for (const [organizationId, count] of [
    [measured.organizationId, EVENTS],
    [noise.organizationId, noiseEvents],
  ] as const) {
    for (let from = 1; from <= count; from += BATCH) {
      const to = Math.min(count, from + BATCH - 1);
      await load(organizationId, from, to);
      loaded += to - from + 1;
      progress.update(loaded);
    }
  }
  progress.stop();
  console.error('vacuum analyze, checkpoint…');
  await connection.execute('vacuum analyze event, event_count, event_count_by_hour');
  // The load's dirty pages written now rather than by the checkpointer while timings are taken.
  await connection
    .execute('checkpoint')
    .catch(() => console.error('(no checkpoint: not allowed for this user)'));
  const seconds = ((performance.now() - loadStarted) / 1000).toFixed(1);
  console.log(
    `loaded ${EVENTS.toLocaleString('en')} + ${noiseEvents.toLocaleString('en')} events in ${seconds} s`,
  );

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
  // The event at depth 500,000 of the log (the previous page's nextAfter there).
  const depth = Math.min(500_000, EVENTS);
  const [deep] = await connection.execute<{ id: string }[]>(
    'select id from event where organization_id = ? order by occurred_at desc, id desc offset ? limit 1',
    [measured.organizationId, depth - 1],
  );
  cases.push([`after the ${depth.toLocaleString('en')}th event`, { after: deep!.id }]);
  console.log(`first page (limit 50) with total, ${RUNS} runs each, ms:`);
  for (const [label, filter] of cases) {
    const timings: number[] = [];
    let total = 0;
    for (let run = 0; run < RUNS + 2; run++) {
      const started = performance.now();
      const page = await measured
        .caller()
        .notifications.listEvents({ limit: 50, offset: 0, ...filter } as never);
      const elapsed = performance.now() - started;
      total = page.pagination.total;
      if (run >= 2) timings.push(elapsed);
    }
    const { median, p95 } = summarise(timings);
    if (process.env.BENCH_TRACE) console.error(label, timings.map((x) => x.toFixed(1)).join(' '));
    console.log(
      `  ${label.padEnd(34)} total ${String(total).padStart(9)}   median ${median.padStart(6)}   p95 ${p95.padStart(6)}`,
    );
  }
});
