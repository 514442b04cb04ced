import type { MikroORM } from '@mikro-orm/postgresql';
import { createIdempotencySweeper } from './idempotency-sweep.ts';
import { createKbSweeper } from './kb-sweep.ts';
import { createNotificationRunner } from './notifications/notification-runner.ts';
import type { Services } from './services.ts';
import { createGenerationRunner } from './speech/generation-runner.ts';

/** A background worker of this instance. Work that must survive a crash is claimed from PostgreSQL. */
export interface BackgroundWorker {
  start(): void;
  /** New work was committed (events, jobs): look now rather than at the next poll. */
  nudge?(): void;
  /** Stops within `timeoutMs`; unfinished claimed work is released for another instance. */
  stop(timeoutMs: number): Promise<void>;
}

/**
 * Every background worker, in one list: a new worker is added here (and its settings to
 * `server/config.ts`). `server/app.ts` starts them after the server listens, nudges them after
 * each commit, and stops them at shutdown.
 */
export function createWorkers(orm: MikroORM, services: Services): BackgroundWorker[] {
  const { config } = services;
  return [
    ...(config.notifications.enabled ? [createNotificationRunner(orm, services)] : []),
    ...(config.generation.enabled ? [createGenerationRunner(orm, services)] : []),
    createKbSweeper(orm, services),
    createIdempotencySweeper(orm, services),
  ];
}
