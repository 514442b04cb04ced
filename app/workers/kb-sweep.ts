import type { MikroORM } from '@mikro-orm/postgresql';
import { sweepAbandonedKbUploads } from '../../domain/kb/abandoned-uploads.ts';
import type { Services } from '../../domain/services.ts';
import type { AppConfig } from '../config.ts';
import { createPeriodicSweep } from './periodic-sweep.ts';

/**
 * Runs the sweep of abandoned knowledge-base uploads (domain/kb/abandoned-uploads.ts) now and
 * then every KB_SWEEP_INTERVAL_MS, on every instance.
 */
export function createKbSweeper(orm: MikroORM, services: Services, config: AppConfig) {
  return createPeriodicSweep({
    intervalMs: config.uploads.kbSweepIntervalMs,
    logger: services.logger,
    sweep: () => sweepAbandonedKbUploads(orm.em, services),
    removedMessage: 'removed knowledge-base uploads that were never completed',
    failedMessage: 'knowledge-base sweep failed',
  });
}
