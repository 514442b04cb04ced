import type { EntityClass, MikroORM } from '@mikro-orm/postgresql';
import type { QueuedWork } from '../../domain/queued-work.ts';
import type { Services } from '../../domain/services.ts';
import { ExportJob } from '../../entities/ExportJob.ts';
import { GenerationJob } from '../../entities/GenerationJob.ts';
import type { AppConfig } from '../config.ts';
import { createExportRunner, type ExportObserver } from './export-runner.ts';
import { createExportSweeper } from './export-sweep.ts';
import { createGenerationRunner } from './generation-runner.ts';
import { createIdempotencySweeper } from './idempotency-sweep.ts';
import { createKbSweeper } from './kb-sweep.ts';
import { createLoginThrottleSweeper } from './login-throttle-sweep.ts';
import { createNotificationRunner } from './notification-runner.ts';

/** A background worker of this instance. Work that must survive a crash is claimed from PostgreSQL. */
export interface BackgroundWorker {
  start(): void;
  /** New work was committed: look now rather than at the next poll. */
  nudge?(): void;
  /**
   * What is this worker's work: entities whose new rows a commit creates, or work a transaction
   * marks as queued (`domain/queued-work.ts`). Such a commit nudges it.
   */
  wokenBy?: (EntityClass<object> | QueuedWork)[];
  /**
   * Its work is events: every commit that recorded some nudges it, whatever wrote them (the event
   * table's trigger notifies at commit; decision 079), on every instance.
   */
  wokenByEvents?: boolean;
  /** Stops within `timeoutMs`; unfinished claimed work is released for another instance. */
  stop(timeoutMs: number): Promise<void>;
}

/**
 * Every background worker, in one list: a new worker is added here (and its settings to
 * `app/config.ts`). `app/app.ts` starts them after the server listens, nudges them after
 * commits that create their work (domain/queued-work.ts, `announceCommittedWork`; events: the
 * NOTIFY of their trigger), and stops them at shutdown.
 */
export function createWorkers(
  orm: MikroORM,
  services: Services,
  config: AppConfig,
  observe: { exportSeconds?: ExportObserver } = {},
): BackgroundWorker[] {
  return [
    ...(config.notifications.enabled
      ? [
          {
            ...createNotificationRunner(orm, services, config),
            wokenBy: ['deliveries' as const],
            wokenByEvents: true,
          },
        ]
      : []),
    ...(config.generation.enabled
      ? [{ ...createGenerationRunner(orm, services, config), wokenBy: [GenerationJob] }]
      : []),
    ...(config.exports.enabled
      ? [
          {
            ...createExportRunner(orm, services, config, observe.exportSeconds),
            wokenBy: [ExportJob, 'exports' as const],
          },
        ]
      : []),
    createKbSweeper(orm, services, config),
    createExportSweeper(orm, services, config),
    createIdempotencySweeper(orm, services, config),
    createLoginThrottleSweeper(orm, services, config),
  ];
}
