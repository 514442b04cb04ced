import type {
  EntityClass,
  EventSubscriber,
  FlushEventArgs,
  MikroORM,
  TransactionEventArgs,
} from '@mikro-orm/postgresql';
import { ChangeSetType } from '@mikro-orm/postgresql';
import { type QueuedWork, takeQueued } from '../../domain/queued-work.ts';
import type { Services } from '../../domain/services.ts';
import { Event } from '../../entities/Event.ts';
import { GenerationJob } from '../../entities/GenerationJob.ts';
import type { AppConfig } from '../config.ts';
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
  /** Stops within `timeoutMs`; unfinished claimed work is released for another instance. */
  stop(timeoutMs: number): Promise<void>;
}

/**
 * Every background worker, in one list: a new worker is added here (and its settings to
 * `app/config.ts`). `app/app.ts` starts them after the server listens, nudges them after
 * commits that create their work (`nudgeOnCommit`), and stops them at shutdown.
 */
export function createWorkers(orm: MikroORM, services: Services, config: AppConfig): BackgroundWorker[] {
  return [
    ...(config.notifications.enabled
      ? [{ ...createNotificationRunner(orm, services, config), wokenBy: [Event, 'deliveries' as const] }]
      : []),
    ...(config.generation.enabled
      ? [{ ...createGenerationRunner(orm, services, config), wokenBy: [GenerationJob] }]
      : []),
    createKbSweeper(orm, services, config),
    createIdempotencySweeper(orm, services, config),
    createLoginThrottleSweeper(orm, services, config),
  ];
}

/**
 * Nudges each worker once a commit has created rows of the entities it is woken by: after the
 * flush when it ran in its own transaction, after the commit of the enclosing transaction
 * otherwise (before it, the worker would not see the rows). Only creations, and only of those
 * entities: the workers' own commits (claims, outcomes) would otherwise nudge them again, and
 * an idle instance ran rounds back to back, thousands of statements a second. Work queued by
 * plain SQL (a delivery retried, a replay) is marked by its transaction (`markQueued`). A nested
 * transaction (a savepoint) reports its own commit: rows created or marked in one nudge then, before
 * the outer commit, and are found by the next poll (nothing in the service nests transactions).
 */
export function nudgeOnCommit(workers: BackgroundWorker[]): EventSubscriber {
  /** What flushes inside a transaction created, until it commits. */
  const createdIn = new WeakMap<object, Set<unknown>>();
  const nudgeWokenBy = (work: Set<unknown>) => {
    for (const worker of workers) {
      if (worker.wokenBy?.some((what) => work.has(what))) worker.nudge?.();
    }
  };
  return {
    afterFlush({ em, uow }: FlushEventArgs) {
      const created = new Set<unknown>();
      for (const changeSet of uow.getChangeSets()) {
        if (changeSet.type === ChangeSetType.CREATE) created.add(changeSet.meta.class);
      }
      if (created.size === 0) return;
      const transaction = em.getTransactionContext<object>();
      if (!transaction) return nudgeWokenBy(created);
      const earlier = createdIn.get(transaction);
      if (!earlier) createdIn.set(transaction, created);
      else for (const entity of created) earlier.add(entity);
    },
    afterTransactionCommit({ transaction }: TransactionEventArgs) {
      if (!transaction) return;
      const created = createdIn.get(transaction);
      createdIn.delete(transaction);
      const queued = takeQueued(transaction);
      // Most commits (every write's) create nothing a worker waits for: no set is built for them.
      if (!created && !queued) return;
      nudgeWokenBy(new Set<unknown>([...(created ?? []), ...(queued ?? [])]));
    },
  };
}
