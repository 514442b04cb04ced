import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Work queued by plain SQL, which creates no entity a commit could be recognised by: a delivery
 * retried or replayed. `app/workers/workers.ts` nudges the workers woken by it once the transaction
 * that marked it commits.
 */
export type QueuedWork = 'deliveries';

const marked = new WeakMap<object, Set<QueuedWork>>();

/** Inside a transaction: once it commits, the worker of `work` should look at once. */
export function markQueued(em: EntityManager, work: QueuedWork): void {
  const transaction = em.getTransactionContext<object>();
  if (!transaction) throw new Error('markQueued marks a transaction: call it inside one');
  const works = marked.get(transaction) ?? new Set();
  works.add(work);
  marked.set(transaction, works);
}

/** The work a transaction marked (read once, when it commits). */
export function takeQueued(transaction: object): Set<QueuedWork> | undefined {
  const works = marked.get(transaction);
  marked.delete(transaction);
  return works;
}
