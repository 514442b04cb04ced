import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Gives memory back to the system when the service has nothing to do: once right after start,
 * and once each time it falls idle (a minute or two without a request) after requests. V8 keeps
 * the pages that start-up and load used (a young generation at its largest, fragmented old
 * space), and its own memory reducer did not run in an idle Node process here. A "last resort"
 * collection (full, compacting, the young generation shrunk to what it holds) takes them back:
 * `npm run bench:memory`, idle 155 → 119 MB, after requests 172 → 130 MB (docs/performance.md).
 *
 * Only a service started by app/main.ts does this (app/serve.ts: `npm start`, `npm run cluster`):
 * a collection pauses the process for 50–80 ms at this heap's size (more for a larger heap), which
 * is nothing to an idle service (a request that arrives meanwhile waits that long) and too much for
 * tests sharing one process.
 */
export interface IdleCollector {
  /** A request arrived. */
  request(): void;
  /** A request's answer ended (or its connection closed). */
  finished(): void;
  /**
   * One idle check, every `IDLE_CHECK_MS`: collects if requests came before the last check, none
   * since, and none is still open (an event stream, a slow upload).
   */
  check(): void;
}

/** The health checks' paths (app/app.ts). */
const PROBES = new Set(['/healthz', '/readyz']);

/**
 * How long without a request counts as idle. A collection resets the heap's growth, so the next
 * burst starts on a small heap: its first seconds collect more often (slides lists in
 * `bench:http` paused 3.4–4.8 ms per young collection instead of ~2 when the service collected in
 * every 10-second pause between rounds). A minute keeps that off bursts with short pauses between.
 */
const IDLE_CHECK_MS = 60_000;

/** The policy, apart from timers and V8: `collect` runs on the first busy-then-quiet check. */
export function createIdleCollector(collect: () => void): IdleCollector {
  let requestsSinceCheck = 0;
  let open = 0;
  let busySinceCollect = false;
  return {
    request() {
      requestsSinceCheck += 1;
      open += 1;
    },
    finished() {
      open -= 1;
    },
    check() {
      if (requestsSinceCheck > 0 || open > 0) {
        busySinceCollect = true;
        requestsSinceCheck = 0;
      } else if (busySinceCollect) {
        busySinceCollect = false;
        collect();
      }
    },
  };
}

/**
 * Collects once now (start-up is over) and then whenever `server` falls idle after requests;
 * `collect` is `collectLastResort` (app/v8-tuning.ts, which takes V8's collector before anything).
 */
export function releaseMemoryWhenIdle(server: Server, collect: () => void): void {
  const idle = createIdleCollector(collect);
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    // A load balancer's health checks come every few seconds: they are not work.
    if (PROBES.has(request.url ?? '')) return;
    idle.request();
    response.once('close', () => idle.finished());
  });
  setImmediate(collect);
  setInterval(() => idle.check(), IDLE_CHECK_MS).unref();
}
