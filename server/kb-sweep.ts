import type { MikroORM } from '@mikro-orm/postgresql';
import { sweepAbandonedKbUploads } from '../domain/kb/abandoned-uploads.ts';
import type { Services } from './services.ts';

/**
 * Runs the sweep of abandoned knowledge-base uploads (domain/kb/abandoned-uploads.ts) now and
 * then every KB_SWEEP_INTERVAL_MS, on every instance.
 */
export function createKbSweeper(orm: MikroORM, services: Services) {
  const { logger } = services;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> | undefined;
  let stopped = true;
  const run = () => {
    round = sweepAbandonedKbUploads(orm.em, services).then(
      (removed) => {
        if (removed > 0) logger.info({ removed }, 'removed knowledge-base uploads that were never completed');
      },
      (error: unknown) => logger.error({ err: error }, 'knowledge-base sweep failed'),
    );
    round.finally(() => {
      if (!stopped) timer = setTimeout(run, services.config.uploads.kbSweepIntervalMs);
    });
  };
  return {
    start() {
      stopped = false;
      run();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await round;
    },
  };
}
