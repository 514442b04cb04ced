import type { Logger } from '../../domain/ports/logger.ts';

/**
 * A sweep run now and then every `intervalMs`, on every instance (its statements must be safe
 * to run on several at once). Rounds never overlap; a failed round is logged and the next one
 * runs on time.
 */
export function createPeriodicSweep(options: {
  intervalMs: number;
  logger: Logger;
  sweep: () => Promise<number>;
  /** Log line for a round that removed something. */
  removedMessage: string;
  failedMessage: string;
}) {
  const { logger } = options;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> | undefined;
  let stopped = true;
  const run = () => {
    round = options.sweep().then(
      (removed) => {
        if (removed > 0) logger.info({ removed }, options.removedMessage);
      },
      (error: unknown) => logger.error({ err: error }, options.failedMessage),
    );
    round.finally(() => {
      if (!stopped) timer = setTimeout(run, options.intervalMs);
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
