/**
 * Loaded into bench:http's servers (`node --import`): their garbage-collection pauses, asked for
 * over the IPC channel. Each `'gc-pauses'` message is answered with the pauses since the last
 * one, so a wrk run is bracketed by two asks. Young collections are the ones that showed where
 * the service's tail came from (`docs/performance.md`, "bench:http").
 */
import { constants, PerformanceObserver } from 'node:perf_hooks';

export interface GcPauses {
  /** Durations in ms of young (scavenge) and full (mark-compact) collections. */
  young: number[];
  full: number[];
}

let pauses: GcPauses = { young: [], full: [] };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    // Node's gc entries carry the collection's kind in `detail` (not in the DOM type).
    const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
    // Incremental-marking steps and weak callbacks are parts of a full collection, not more of them.
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) pauses.young.push(entry.duration);
    else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) pauses.full.push(entry.duration);
  }
}).observe({ entryTypes: ['gc'] });

process.on('message', (message) => {
  if (message !== 'gc-pauses') return;
  const answer = pauses;
  pauses = { young: [], full: [] };
  process.send?.(answer);
});
// The channel must not keep a server alive that was told to stop.
process.channel?.unref();
