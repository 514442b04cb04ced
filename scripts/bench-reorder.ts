/**
 * `npm run bench:reorder`: how long reordering 1,000 slides takes, through the reorder
 * procedure itself (validation, deck lock, membership check, the single UPDATE, the event,
 * commit) — in-process, so the figures are the service's work without HTTP.
 *
 * Uses DATABASE_URL when set, otherwise a throw-away embedded PostgreSQL.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../server/config.ts';
import { openDatabase } from '../server/database.ts';
import { createInProcessCaller } from '../server/in-process.ts';
import { createLogger } from '../server/logger.ts';
import { createServices } from '../server/services.ts';

const SLIDES = Number(process.env.BENCH_SLIDES ?? 1000);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);

const dataDir = process.env.DATABASE_URL ? undefined : await mkdtemp(path.join(os.tmpdir(), 'deck-bench-'));
const config = loadConfig({
  ...process.env,
  ...(dataDir ? { DATA_DIR: dataDir, EMBEDDED_POSTGRES_PORT: '5499' } : {}),
});
const logger = createLogger('warn');
const database = await openDatabase(config, logger);
const services = createServices(config, logger);

try {
  const operator = createInProcessCaller(database.orm, services);
  const suffix = Date.now().toString(36);
  const ids = await operator.admin.createUser({
    organization: `Bench ${suffix}`,
    email: `bench-${suffix}@example.test`,
    password: 'bench-password',
  });
  const auth = { userId: ids.userId, organizationId: ids.organizationId, role: 'owner' as const };
  const asUser = () => createInProcessCaller(database.orm, services, auth);
  const deck = await asUser().decks.create({ name: 'Benchmark deck' });

  // The slides are loaded in one statement: the benchmark is about reordering them.
  await database.orm.em.fork().execute(
    `insert into slide (id, deck_id, slide_id, bullets, order_index, slide_type, created_at, updated_at)
     select gen_random_uuid(), ?, 'slide-' || n, '[]', n - 1, 'standard', now(), now()
       from generate_series(1, ?) as n`,
    [deck.id, SLIDES],
  );
  const { slides } = await asUser().slides.list({ deckId: deck.id });
  let order = slides.map((s) => s.id);

  const timings: number[] = [];
  for (let run = 0; run < RUNS + 3; run++) {
    order = shuffle(order);
    const started = performance.now();
    await asUser().slides.reorder({ deckId: deck.id, slideIds: order });
    const elapsed = performance.now() - started;
    if (run >= 3) timings.push(elapsed); // the first runs warm caches and plans
  }
  const check = (await asUser().slides.list({ deckId: deck.id })).slides.map((s) => s.id);
  if (check.join() !== order.join()) throw new Error('the last reorder did not take effect');

  timings.sort((a, b) => a - b);
  const at = (q: number) => timings[Math.min(timings.length - 1, Math.floor(q * timings.length))]!.toFixed(1);
  console.log(`reorder of ${SLIDES} slides through the procedure, ${RUNS} runs (ms):`);
  console.log(`  min ${at(0)}  median ${at(0.5)}  p95 ${at(0.95)}  max ${at(1)}`);
} finally {
  await database.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}

function shuffle<T>(items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}
