import { setTimeout as sleep } from 'node:timers/promises';
import type { MikroORM } from '@mikro-orm/postgresql';
import { groupCommit } from '../../domain/group-commit.ts';
import { wakeWaitingDeliveries } from '../../domain/notifications/delivery-order.ts';
import {
  claimDueDeliveries,
  finishDeliveries,
  releaseDeliveries,
  renewDeliveryLeases,
} from '../../domain/notifications/delivery-queue.ts';
import { dispatchEvents } from '../../domain/notifications/dispatch-events.ts';
import type { AttemptOutcome, DeliveryJob } from '../../domain/ports/notifier.ts';
import type { Services } from '../../domain/services.ts';
import type { AppConfig } from '../config.ts';
import { WorkLoop } from './work-loop.ts';

/** Most outcomes one transaction records. */
const FINISH_BATCH = 200;
/** Events one dispatch statement turns into deliveries, and statements per round at most. */
const DISPATCH_BATCH = 500;
const DISPATCH_BATCHES_PER_ROUND = 2;
/** Leases are renewed three times a lease: two renewals may fail before one lapses. */
const RENEWALS_PER_LEASE = 3;
/** How often waiting deliveries a concurrent finish missed are looked for: see `prepare`. */
const SWEEP_EVERY_MS = 10_000;
/** Far longer than a transaction that makes deliveries may run (each statement is bounded). */
const SWEEP_MARGIN_MS = 60_000;
const FULL_SWEEP_EVERY_MS = 5 * 60_000;

/**
 * Notification delivery in one instance: each round turns new events into deliveries,
 * then claims due deliveries and sends them. The deliveries it holds are kept leased by a
 * renewal timer, so the lease can be short: a killed instance's claims come back after
 * `leaseSeconds`, not after the longest a send may take.
 */
export function createNotificationRunner(orm: MikroORM, services: Services, config: AppConfig) {
  const { logger } = services;
  const { leaseSeconds } = config.notifications;
  /** Claims not yet written or released (each claim its own job object): the leases to renew. */
  const held = new Set<DeliveryJob>();
  /** The last sweep for waiting deliveries a missed wake left behind: when it ran (this clock), and its database time. */
  let lastSweep: { ranAt: number; databaseTime: Date } | null = null;
  let lastFullSweepAt = 0;
  // Outcomes that arrive while one batch is being written go in the next: one transaction for
  // many deliveries rather than one each. A written batch may have made the next delivery of
  // each of its aggregates due (they wait for the one before them), so the loop looks at once;
  // outcomes come only from sends, so an idle instance is not nudged.
  const finish = groupCommit<[DeliveryJob, AttemptOutcome]>(async (finished) => {
    try {
      await finishDeliveries(orm.em.fork(), finished, config.notifications);
    } finally {
      loop.nudge();
    }
  }, FINISH_BATCH);
  const unwritten = new Set<Promise<void>>();
  const loop = new WorkLoop<DeliveryJob>({
    name: 'notifications',
    pollIntervalMs: config.notifications.pollIntervalMs,
    concurrency: config.notifications.concurrency,
    logger,
    async prepare() {
      const em = orm.em.fork();
      // A bounded share of the outbox per round, then the claims: while events keep coming,
      // "dispatch until none is left" never ended and nothing was delivered until they stopped.
      let more = false;
      for (let batch = 0; batch < DISPATCH_BATCHES_PER_ROUND; batch++) {
        more = (await dispatchEvents(em, DISPATCH_BATCH)) === DISPATCH_BATCH;
        if (!more) break;
      }
      // Every few seconds, the waiting deliveries made since the sweep before (with a margin
      // wider than any transaction that could have missed its wake); at start, and every few
      // minutes as a backstop for whatever else could leave one waiting, all of them.
      const now = Date.now();
      if (lastSweep && now - lastSweep.ranAt < SWEEP_EVERY_MS) return more;
      const full = !lastSweep || now - lastFullSweepAt >= FULL_SWEEP_EVERY_MS;
      const since = full || !lastSweep ? null : new Date(lastSweep.databaseTime.getTime() - SWEEP_MARGIN_MS);
      const { at } = await wakeWaitingDeliveries(em, since);
      lastSweep = { ranAt: now, databaseTime: at };
      if (full) lastFullSweepAt = now;
      return more;
    },
    async claim(room) {
      const jobs = await claimDueDeliveries(orm.em.fork(), room, leaseSeconds);
      for (const job of jobs) held.add(job);
      return jobs;
    },
    async run(job, signal) {
      let outcome: AttemptOutcome;
      try {
        outcome = await services.notifier.send(job, signal);
      } catch (error) {
        // Not expected (send answers failures as outcomes): the lease is left to lapse.
        if (!signal.aborted) held.delete(job);
        throw error;
      }
      // Cut short by a stop: not an attempt; the delivery is released for another instance.
      if (signal.aborted && !outcome.delivered) throw signal.reason;
      // The slot is free once the answer is in: the next send does not wait for the batch's
      // commit. The delivery stays leased (and its aggregate's next one unclaimable) until
      // then; should the write fail, the lease lapses and it is sent again (at least once).
      const written = finish([job, outcome])
        .catch((error: unknown) =>
          logger.error(
            { err: error, deliveryId: job.deliveryId },
            'delivery outcomes of its batch not all written (those not written are sent again once their lease lapses)',
          ),
        )
        .finally(() => held.delete(job));
      unwritten.add(written);
      void written.finally(() => unwritten.delete(written));
      // Backpressure: while a batch's worth of outcomes waits to be written, slots wait for
      // theirs, so sends cannot run ahead of the writes (each unwritten outcome is a message
      // sent again should the instance die: bench:webhooks saw 2,000 duplicates without this).
      if (unwritten.size > FINISH_BATCH) await written;
    },
    release(jobs) {
      for (const job of jobs) held.delete(job);
      return releaseDeliveries(orm.em.fork(), jobs);
    },
  });

  let renewal: NodeJS.Timeout | undefined;
  let renewing = false;
  const renew = async () => {
    if (renewing || held.size === 0) return;
    renewing = true;
    try {
      await renewDeliveryLeases(orm.em.fork(), [...held], leaseSeconds);
    } catch (error) {
      // The next renewal tries again; should the leases lapse, their deliveries are sent again.
      logger.error({ err: error, deliveries: held.size }, 'could not renew delivery leases');
    } finally {
      renewing = false;
    }
  };

  return {
    start() {
      renewal = setInterval(() => void renew(), (leaseSeconds * 1000) / RENEWALS_PER_LEASE);
      renewal.unref();
      loop.start();
    },
    nudge: () => loop.nudge(),
    async stop(timeoutMs = Number.POSITIVE_INFINITY) {
      const deadline = performance.now() + timeoutMs;
      await loop.stop(timeoutMs);
      // Outcomes of sends that finished: recorded rather than sent again by another instance,
      // within what is left of the timeout (a stalled database must not hold the shutdown:
      // what is not written is sent again once its lease lapses).
      const left = Math.max(0, deadline - performance.now());
      const written = Promise.all(unwritten);
      await (Number.isFinite(left)
        ? Promise.race([written, sleep(left, undefined, { ref: false })])
        : written);
      clearInterval(renewal);
    },
  };
}
