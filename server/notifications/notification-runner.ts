import type { MikroORM } from '@mikro-orm/postgresql';
import {
  type AttemptOutcome,
  claimDueDeliveries,
  type DeliveryJob,
  finishDeliveries,
  releaseDeliveries,
} from '../../domain/notifications/delivery-queue.ts';
import { dispatchEvents } from '../../domain/notifications/dispatch-events.ts';
import { groupCommit } from '../group-commit.ts';
import type { Services } from '../services.ts';
import { WorkLoop } from '../work-loop.ts';

/** Most outcomes one transaction records. */
const FINISH_BATCH = 200;

/**
 * Notification delivery in one instance: each round turns new events into deliveries,
 * then claims due deliveries and sends them.
 */
export function createNotificationRunner(orm: MikroORM, services: Services) {
  const { config, logger } = services;
  const leaseSeconds = Math.ceil(config.notifications.webhookTimeoutMs / 1000) + 50;
  // Outcomes that arrive while one batch is being written go in the next: one transaction for
  // many deliveries rather than one each.
  const finish = groupCommit<[DeliveryJob, AttemptOutcome]>(
    (finished) => finishDeliveries(orm.em.fork(), finished, config.notifications),
    FINISH_BATCH,
  );
  const unwritten = new Set<Promise<void>>();
  const loop = new WorkLoop<DeliveryJob>({
    name: 'notifications',
    pollIntervalMs: config.notifications.pollIntervalMs,
    concurrency: config.notifications.concurrency,
    logger,
    async prepare() {
      const em = orm.em.fork();
      while ((await dispatchEvents(em)) > 0) {}
    },
    claim: (room) => claimDueDeliveries(orm.em.fork(), room, leaseSeconds),
    async run(job, signal) {
      const outcome = await services.notifier.send(job, signal);
      // Cut short by a stop: not an attempt; the delivery is released for another instance.
      if (signal.aborted && !outcome.delivered) throw signal.reason;
      // The slot is free once the answer is in: the next send does not wait for the batch's
      // commit. The delivery stays leased (and its aggregate's next one unclaimable) until
      // then; should the write fail, the lease lapses and it is sent again (at least once).
      const written = finish([job, outcome]).catch((error: unknown) =>
        logger.error({ err: error, deliveryId: job.deliveryId }, 'could not record a delivery attempt'),
      );
      unwritten.add(written);
      void written.finally(() => unwritten.delete(written));
    },
    release: (jobs) =>
      releaseDeliveries(
        orm.em.fork(),
        jobs.map((job) => job.deliveryId),
      ),
  });
  return {
    start: () => loop.start(),
    nudge: () => loop.nudge(),
    async stop(timeoutMs?: number) {
      await loop.stop(timeoutMs);
      // Outcomes of sends that finished: recorded rather than sent again by another instance.
      await Promise.all(unwritten);
    },
  };
}
