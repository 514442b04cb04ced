import type { MikroORM } from '@mikro-orm/postgresql';
import { sweepExpiredLoginThrottles } from '../../domain/auth/login-throttle.ts';
import type { Services } from '../../domain/services.ts';
import type { AppConfig } from '../config.ts';
import { createPeriodicSweep } from './periodic-sweep.ts';

/**
 * Removes sign-in throttle counts whose window has ended (domain/auth/login-throttle.ts) now
 * and then every LOGIN_THROTTLE_SWEEP_INTERVAL_MS, on every instance (rows are deleted with
 * SKIP LOCKED). Without it, every e-mail and address ever tried would keep a row.
 */
export function createLoginThrottleSweeper(orm: MikroORM, services: Services, config: AppConfig) {
  const { windowSeconds, sweepIntervalMs } = config.loginThrottle;
  return createPeriodicSweep({
    intervalMs: sweepIntervalMs,
    logger: services.logger,
    sweep: () => sweepExpiredLoginThrottles(orm.em.fork(), windowSeconds),
    removedMessage: 'removed expired sign-in throttle counts',
    failedMessage: 'sign-in throttle sweep failed',
  });
}
