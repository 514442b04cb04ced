import type { MikroORM } from '@mikro-orm/postgresql';
import { sweepExpiredIdempotencyKeys } from '../domain/idempotency/idempotency-keys.ts';
import { createPeriodicSweep } from './periodic-sweep.ts';
import type { Services } from './services.ts';

/**
 * Removes idempotency keys past their 24 hours (domain/idempotency/idempotency-keys.ts) now and
 * then every IDEMPOTENCY_SWEEP_INTERVAL_MS, on every instance (rows are deleted with SKIP LOCKED).
 */
export function createIdempotencySweeper(orm: MikroORM, services: Services) {
  return createPeriodicSweep({
    intervalMs: services.config.idempotency.sweepIntervalMs,
    logger: services.logger,
    sweep: () => sweepExpiredIdempotencyKeys(orm.em.fork()),
    removedMessage: 'removed expired idempotency keys',
    failedMessage: 'idempotency key sweep failed',
  });
}
