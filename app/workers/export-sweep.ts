import type { MikroORM } from '@mikro-orm/postgresql';
import { sweepExpiredExports } from '../../domain/exports/export-retention.ts';
import type { Services } from '../../domain/services.ts';
import type { AppConfig } from '../config.ts';
import { createPeriodicSweep } from './periodic-sweep.ts';

/**
 * Runs the sweep of expired exports' files (domain/exports/export-retention.ts) now and then
 * every EXPORT_SWEEP_INTERVAL_MS, on every instance.
 */
export function createExportSweeper(orm: MikroORM, services: Services, config: AppConfig) {
  return createPeriodicSweep({
    intervalMs: config.exports.sweepIntervalMs,
    logger: services.logger,
    sweep: () => sweepExpiredExports(orm.em, services),
    removedMessage: 'deleted the files of expired exports',
    failedMessage: 'export retention sweep failed',
  });
}
