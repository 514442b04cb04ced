import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Counts sign-in attempts per e-mail and per client address in fixed windows, in PostgreSQL
 * so that every instance sees the same counts. An attempt is counted **before** its password
 * is checked, by one statement that increments and returns the counts: N concurrent attempts
 * get N distinct counts, so at most the limit of them are ever evaluated. A success gives its
 * count back (see `forgiveLoginAttempt`); a key past its limit is refused, even with the right
 * password, until its window ends.
 */
export interface ThrottleLimits {
  maxFailuresPerEmail: number;
  maxFailuresPerAddress: number;
  windowSeconds: number;
}

const emailKey = (email: string) => `email:${email}`;
const addressKey = (address: string) => `address:${address}`;

/**
 * Counts one attempt for the e-mail and the address (an expired window starts again at 1)
 * and answers the seconds until the caller may try again: 0 when this attempt may be checked.
 * The keys are always locked in the same order (e-mail, then address), so concurrent
 * attempts cannot deadlock.
 */
export async function countLoginAttempt(
  em: EntityManager,
  email: string,
  address: string,
  limits: ThrottleLimits,
): Promise<number> {
  const rows: { key: string; failures: number; remaining: string }[] = await em.getConnection().execute(
    `insert into login_throttle (key, failures, window_started_at) values (?, 1, now()), (?, 1, now())
     on conflict (key) do update set
       failures = case when login_throttle.window_started_at + make_interval(secs => ?) <= now()
                       then 1 else login_throttle.failures + 1 end,
       window_started_at = case when login_throttle.window_started_at + make_interval(secs => ?) <= now()
                                then now() else login_throttle.window_started_at end
     returning key, failures,
               extract(epoch from (window_started_at + make_interval(secs => ?)) - now()) as remaining`,
    [emailKey(email), addressKey(address), limits.windowSeconds, limits.windowSeconds, limits.windowSeconds],
  );
  let wait = 0;
  for (const row of rows) {
    const max = row.key === emailKey(email) ? limits.maxFailuresPerEmail : limits.maxFailuresPerAddress;
    if (row.failures > max) wait = Math.max(wait, Math.max(1, Math.ceil(Number(row.remaining))));
  }
  return wait;
}

/**
 * A successful sign-in forgives the e-mail's failures and gives back the attempt it counted
 * against the address (a success is not a failure; an office behind one address must not
 * lock itself out by signing in).
 */
export async function forgiveLoginAttempt(em: EntityManager, email: string, address: string): Promise<void> {
  await em.getConnection().execute(
    `with forgiven as (delete from login_throttle where key = ?)
     update login_throttle set failures = greatest(failures - 1, 0) where key = ?`,
    [emailKey(email), addressKey(address)],
  );
}
