import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8 settings for a request/response server, applied by `app/main.ts` before any other
 * module is evaluated (node:v8 takes them at run time; V8 reads both at each collection).
 * Measured with `npm run bench:http`; `docs/performance.md`, "The V8 settings".
 *
 * No allocation-site pretenuring: under load V8 saw the rows of requests still in flight survive
 * young collections, decided their allocation sites were long-lived and allocated them straight
 * into old space, where each one, dead milliseconds later, kept everything it pointed to alive
 * through every young collection until the next full one. 50-slide list: 7.9 MB promoted and
 * 7 ms paused per young collection, p99 74 ms; without it 0.1 MB, 1.5 ms, p99 42 ms.
 *
 * The old generation may grow to twice what survived the last full collection before the next
 * one (V8 picks 1.1–4× from how fast it collects; under steady load here it picked near 1.1×,
 * so the ~60 MB heap was marked about once a second): 50-slide list right after four rounds of
 * `me`: 11 → 0 full collections in its run, p99 72 → 44 ms; the heap peaks ~40 MB higher.
 */
export const V8_FLAGS = ['--no-allocation-site-pretenuring', '--heap-growing-percent=100'];

for (const flag of V8_FLAGS) v8.setFlagsFromString(flag);

// V8's collector, taken here, before any worker thread can exist, without exposing `gc`: V8's
// flags are the process's, and a worker whose isolate were made while `--expose-gc` is on would
// get a global `gc`; the flag is on only while a fresh context is made to hand the function out.
v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options: object) => void;
v8.setFlagsFromString('--no-expose-gc');

/** A "last resort" collection: full, compacting, the young generation shrunk to what it holds. */
export function collectLastResort(): void {
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
