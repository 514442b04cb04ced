/**
 * `npm run bench:reorder`: how long reordering 1,000 slides takes, through the reorder
 * procedure itself (validation, deck lock, membership check, the single UPDATE, the event,
 * commit) — in-process, so the figures are the service's work without HTTP.
 */
import { summarise, withBenchDatabase } from './bench-setup.ts';

const SLIDES = Number(process.env.BENCH_SLIDES ?? 1000);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);

await withBenchDatabase(async ({ orm, newOrganization }) => {
  const { caller } = await newOrganization('Reorder');
  const deck = await caller().decks.createDeck({ name: 'Benchmark deck' });
  // The slides are loaded in one statement: the benchmark is about reordering them.
  await orm.em.fork().execute(
    `insert into slide (id, deck_id, slide_id, bullets, order_index, slide_type, created_at, updated_at)
     select gen_random_uuid(), ?, 'slide-' || n, '[]', n - 1, 'standard', now(), now()
       from generate_series(1, ?) as n`,
    [deck.id, SLIDES],
  );
  let order = (await caller().slides.listSlides({ deckId: deck.id })).slides.map((s) => s.id);

  const timings: number[] = [];
  for (let run = 0; run < RUNS + 3; run++) {
    order = shuffle(order);
    const started = performance.now();
    await caller().slides.reorderSlides({ deckId: deck.id, slideIds: order });
    const elapsed = performance.now() - started;
    if (run >= 3) timings.push(elapsed); // the first runs warm caches and plans
  }
  const check = (await caller().slides.listSlides({ deckId: deck.id })).slides.map((s) => s.id);
  if (check.join() !== order.join()) throw new Error('the last reorder did not take effect');

  const { min, median, p95, max } = summarise(timings);
  console.log(`reorder of ${SLIDES} slides through the procedure, ${RUNS} runs (ms):`);
  console.log(`  min ${min}  median ${median}  p95 ${p95}  max ${max}`);
});

function shuffle<T>(items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}
