/**
 * When to try a failed delivery again: the schedule's delay for this retry (±10 % jitter,
 * so receivers that failed together are not hit together again), or the receiver's own
 * `Retry-After` when it sent one (capped at a day). Null: no retries left, give up.
 */
export function retryDelaySeconds(
  attemptsDone: number,
  schedule: number[],
  retryAfterSeconds?: number,
  random: () => number = Math.random,
): number | null {
  const scheduled = schedule[attemptsDone - 1];
  if (scheduled === undefined) return null;
  if (retryAfterSeconds !== undefined) return Math.min(retryAfterSeconds, 86_400);
  return scheduled * (0.9 + 0.2 * random());
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}
