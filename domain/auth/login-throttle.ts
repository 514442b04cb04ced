import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Counts sign-in attempts in fixed windows, in PostgreSQL so that every instance sees the same
 * counts, under three keys:
 *
 * - the client **address** (every e-mail): past its limit the address is refused (429) until
 *   its window ends — one address guessing at many accounts;
 * - the **e-mail and address** together: past its limit that address is refused for that
 *   e-mail until its window ends — one address guessing at one account;
 * - the **e-mail** (every address): never refuses anyone by itself. Past its threshold, an
 *   address that has already failed for the e-mail must wait between attempts, the wait
 *   doubling with each further failure (up to the window) — many addresses guessing at one
 *   account. An address without failures for the e-mail is never held back by it, so knowing
 *   an e-mail is not enough to lock its owner out.
 *
 * An attempt is counted **before** its password is checked, by one statement that increments
 * the three counts and returns them: N concurrent attempts get N distinct counts, so at most the
 * limit of them are ever checked. Refused attempts count too (they are attempts, and retrying
 * before the wait is over makes it longer). A success gives its count back (`forgiveLoginAttempt`).
 */
export interface ThrottleLimits {
  maxFailuresPerAddress: number;
  maxFailuresPerEmailAndAddress: number;
  backoffAfterFailuresPerEmail: number;
  windowSeconds: number;
}

/**
 * The three keys, in the order every statement takes their row locks (sorted, so that
 * concurrent attempts cannot deadlock). An e-mail holds no space (zod's check), so the pair is
 * unambiguous.
 */
function keysOf(email: string, address: string) {
  return {
    address: `address:${address}`,
    emailAndAddress: `email-address:${email} ${address}`,
    email: `email:${email}`,
  };
}

/** Parameter: the window in seconds (given once for each use). */
const WINDOW_ENDED = 't.window_started_at + make_interval(secs => ?) <= now()';

interface CountRow {
  key: string;
  /** Attempts in this window, this one included. */
  failures: number;
  window_remaining: string;
  /** Seconds since the attempt before this one under this key; null when none in this window. */
  since_previous: string | null;
}

/** The wait between an address's attempts at an e-mail that has had `failures` from everywhere. */
function backoffSeconds(failures: number, limits: ThrottleLimits): number {
  if (failures < limits.backoffAfterFailuresPerEmail) return 0;
  return Math.min(2 ** (failures - limits.backoffAfterFailuresPerEmail), limits.windowSeconds);
}

/**
 * Counts one attempt (an expired window starts again at 1) and answers the seconds until this
 * caller may try again: 0 when this attempt may be checked.
 */
export async function countLoginAttempt(
  em: EntityManager,
  email: string,
  address: string,
  limits: ThrottleLimits,
): Promise<number> {
  const keys = keysOf(email, address);
  const rows = await em.execute<CountRow[]>(
    `insert into login_throttle as t (key, failures, window_started_at, last_failure_at)
     values (?, 1, now(), now()), (?, 1, now(), now()), (?, 1, now(), now())
     on conflict (key) do update set
       failures = case when ${WINDOW_ENDED} then 1 else t.failures + 1 end,
       previous_failure_at = case when ${WINDOW_ENDED} then null else t.last_failure_at end,
       window_started_at = case when ${WINDOW_ENDED} then now() else t.window_started_at end,
       last_failure_at = now()
     returning key, failures,
               extract(epoch from window_started_at + make_interval(secs => ?) - now()) as window_remaining,
               extract(epoch from now() - previous_failure_at) as since_previous`,
    // The keys in lock order, then the window for each of its four uses.
    [keys.address, keys.emailAndAddress, keys.email, ...Array(4).fill(limits.windowSeconds)],
  );
  const row = (key: string) => rows.find((r) => r.key === key)!;
  const byAddress = row(keys.address);
  const byPair = row(keys.emailAndAddress);
  const byEmail = row(keys.email);
  const untilWindowEnds = (r: CountRow) => Math.max(1, Math.ceil(Number(r.window_remaining)));

  let wait = 0;
  if (byAddress.failures > limits.maxFailuresPerAddress) wait = untilWindowEnds(byAddress);
  if (byPair.failures > limits.maxFailuresPerEmailAndAddress) wait = Math.max(wait, untilWindowEnds(byPair));
  // Only an address that has failed for this e-mail before (in this window) waits for the
  // e-mail's failures; the wait since its previous attempt is the one the e-mail had then.
  const previousFailures = byEmail.failures - 1;
  if (
    byPair.since_previous !== null &&
    Number(byPair.since_previous) < backoffSeconds(previousFailures, limits)
  ) {
    // This attempt counted too: the next one must wait the (doubled) time from now.
    wait = Math.max(wait, backoffSeconds(byEmail.failures, limits));
  }
  return wait;
}

/**
 * A successful sign-in is not a failure: it clears the address's failures for this e-mail and
 * gives back the attempt it counted against the address and the e-mail (an office behind one
 * address must not lock itself out by signing in). It does not clear the e-mail's failures
 * from elsewhere: the owner signing in says nothing about the others guessing. One row a
 * statement, so that no lock is held while another is awaited.
 */
export async function forgiveLoginAttempt(em: EntityManager, email: string, address: string): Promise<void> {
  const keys = keysOf(email, address);
  await em.execute('delete from login_throttle where key = ?', [keys.emailAndAddress]);
  for (const key of [keys.address, keys.email]) {
    await em.execute('update login_throttle set failures = greatest(failures - 1, 0) where key = ?', [key]);
  }
}

/**
 * Removes the counts whose window has ended: the next attempt would start them again from 1
 * anyway. In batches, skipping rows an attempt holds, so that any number of instances may
 * sweep at once. Answers how many were removed.
 */
export async function sweepExpiredLoginThrottles(
  em: EntityManager,
  windowSeconds: number,
  batchSize = 1000,
): Promise<number> {
  let removed = 0;
  for (;;) {
    const rows: unknown[] = await em.execute(
      `delete from login_throttle where ctid in (
         select ctid from login_throttle where window_started_at <= now() - make_interval(secs => ?)
          limit ? for update skip locked)
       returning 1`,
      [windowSeconds, batchSize],
    );
    removed += rows.length;
    if (rows.length < batchSize) return removed;
  }
}
