import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Counts failed logins per e-mail and per client address in fixed windows, in PostgreSQL
 * so that every instance sees the same counts. A key that reached its limit is refused
 * (even with the right password) until its window ends.
 */
export interface ThrottleLimits {
  maxFailuresPerEmail: number;
  maxFailuresPerAddress: number;
  windowSeconds: number;
}

function keysFor(email: string, address: string, limits: ThrottleLimits) {
  return [
    { key: `email:${email}`, max: limits.maxFailuresPerEmail },
    { key: `address:${address}`, max: limits.maxFailuresPerAddress },
  ];
}

/** Seconds until the caller may try again, or 0 when not throttled. */
export async function secondsUntilLoginAllowed(
  em: EntityManager,
  email: string,
  address: string,
  limits: ThrottleLimits,
): Promise<number> {
  const keys = keysFor(email, address, limits);
  const rows: { key: string; failures: number; remaining: string }[] = await em.getConnection().execute(
    `select key, failures,
            extract(epoch from (window_started_at + make_interval(secs => ?)) - now()) as remaining
       from login_throttle where key in (?, ?)`,
    [limits.windowSeconds, keys[0]!.key, keys[1]!.key],
  );
  let wait = 0;
  for (const row of rows) {
    const max = keys.find((k) => k.key === row.key)!.max;
    const remaining = Number(row.remaining);
    if (row.failures >= max && remaining > 0) wait = Math.max(wait, Math.ceil(remaining));
  }
  return wait;
}

/** One atomic upsert per key; an expired window starts again at 1. */
export async function recordLoginFailure(
  em: EntityManager,
  email: string,
  address: string,
  limits: ThrottleLimits,
): Promise<void> {
  for (const { key } of keysFor(email, address, limits)) {
    await em.getConnection().execute(
      `insert into login_throttle (key, failures, window_started_at) values (?, 1, now())
       on conflict (key) do update set
         failures = case when login_throttle.window_started_at + make_interval(secs => ?) <= now()
                         then 1 else login_throttle.failures + 1 end,
         window_started_at = case when login_throttle.window_started_at + make_interval(secs => ?) <= now()
                                  then now() else login_throttle.window_started_at end`,
      [key, limits.windowSeconds, limits.windowSeconds],
    );
  }
}

/** A successful login forgives the e-mail's failures (not the address's). */
export async function clearLoginFailures(em: EntityManager, email: string): Promise<void> {
  await em.getConnection().execute('delete from login_throttle where key = ?', [`email:${email}`]);
}
