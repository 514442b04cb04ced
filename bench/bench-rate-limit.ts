/**
 * What the rate limiter costs a request: `rateLimiter.consume` (one caller count, and for a
 * heavy request the organization's too), timed over many calls and callers, in-process.
 * Usage: npm run bench:rate-limit
 */
import { performance } from 'node:perf_hooks';
import { createRateLimiter } from '../rest/rate-limit.ts';

const CALLS = Number(process.env.BENCH_CALLS ?? 200_000);
const CALLERS = Number(process.env.BENCH_CALLERS ?? 1000);
const limiter = createRateLimiter({ perCallerPerMinute: 1e9, heavyPerOrganizationPerMinute: 1e9 });
const callers = Array.from({ length: CALLERS }, (_, i) => `user:${i.toString(16).padStart(32, '0')}`);

async function time(label: string, heavyCalls: number) {
  const rounds: number[] = [];
  for (let round = 0; round < 5; round += 1) {
    const start = performance.now();
    for (let i = 0; i < CALLS; i += 1) {
      await limiter.consume(callers[i % CALLERS]!, `org-${i % 50}`, 1, heavyCalls);
    }
    rounds.push(((performance.now() - start) * 1000) / CALLS);
  }
  rounds.sort((a, b) => a - b);
  console.log(
    `${label}: median ${rounds[2]!.toFixed(2)} µs a call (min ${rounds[0]!.toFixed(2)}, max ${rounds[4]!.toFixed(2)}; ${CALLS} calls over ${CALLERS} callers, 5 rounds)`,
  );
}

await time('consume, light request', 0);
await time('consume, heavy request', 1);
const refusing = createRateLimiter({ perCallerPerMinute: 1, heavyPerOrganizationPerMinute: 1 });
const start = performance.now();
for (let i = 0; i < CALLS; i += 1) await refusing.consume('user:one', 'org', 1, 0);
console.log(
  `consume, refused (past the limit): ${(((performance.now() - start) * 1000) / CALLS).toFixed(2)} µs a call`,
);
process.exit(0);
