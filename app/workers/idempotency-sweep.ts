import type { MikroORM } from '@mikro-orm/postgresql';
import { sweepExpiredIdempotencyKeys } from '../../domain/idempotency/idempotency-keys.ts';
import type { Services } from '../../domain/services.ts';
import type { AppConfig } from '../config.ts';
import { createPeriodicSweep } from './periodic-sweep.ts';

/**
 * Removes idempotency keys past their 24 hours (domain/idempotency/idempotency-keys.ts) now and
 * then every IDEMPOTENCY_SWEEP_INTERVAL_MS, on every instance (rows are deleted with SKIP LOCKED).
 */
export function createIdempotencySweeper(orm: MikroORM, services: Services, config: AppConfig) {
  return createPeriodicSweep({
    intervalMs: config.idempotency.sweepIntervalMs,
    logger: services.logger,
    sweep: () => sweepExpiredIdempotencyKeys(orm.em.fork()),
    removedMessage: 'removed expired idempotency keys',
    failedMessage: 'idempotency key sweep failed',
  });
}
