import type { IncomingMessage, Server } from 'node:http';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Gives memory back to the system when the service has nothing to do: once right after start,
 * and once each time it falls idle after requests. V8 keeps the pages that start-up and load
 * used (a young generation at its largest, fragmented old space), and its own memory reducer did
 * not run in an idle Node process here. A "last resort" collection (full, compacting, the young
 * generation shrunk to what it holds) takes them back: `npm run bench:memory`, idle 155 → 119 MB,
 * after requests 172 → 130 MB (docs/performance.md, "bench:memory").
 *
 * Only `npm start` does this (app/serve.ts): a collection pauses the process for 50–80 ms, which
 * is nothing to an idle service (a request that arrives meanwhile waits that long) and too much
 * for tests sharing one process.
 */
export interface IdleCollector {
  /** A request arrived. */
  request(): void;
  /** One idle check, every `IDLE_CHECK_MS`: collects if requests came before the last check and none since. */
  check(): void;
}

/** The health checks' paths (app/app.ts). */
const PROBES = new Set(['/healthz', '/readyz']);

/** How long without a request counts as idle. */
const IDLE_CHECK_MS = 10_000;

/** The policy, apart from timers and V8: `collect` runs on the first busy-then-quiet check. */
export function createIdleCollector(collect: () => void): IdleCollector {
  let requestsSinceCheck = 0;
  let busySinceCollect = false;
  return {
    request() {
      requestsSinceCheck += 1;
    },
    check() {
      if (requestsSinceCheck > 0) {
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
 * V8's collector, taken without exposing `gc` to the process: the flag is on only while a fresh
 * context is made to hand the function out, so no other code (nor a worker thread) gets it.
 */
function lastResortCollector(): () => void {
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: object) => void;
  v8.setFlagsFromString('--no-expose-gc');
  return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

/** Collects once now (start-up is over) and then whenever `server` falls idle after requests. */
export function releaseMemoryWhenIdle(server: Server): void {
  const collect = lastResortCollector();
  const idle = createIdleCollector(collect);
  // A load balancer's health checks come every few seconds: they are not work.
  server.on('request', (request: IncomingMessage) => {
    if (!PROBES.has(request.url ?? '')) idle.request();
  });
  setImmediate(collect);
  setInterval(() => idle.check(), IDLE_CHECK_MS).unref();
}
