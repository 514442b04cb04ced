import {
  ChangeSetType,
  type EntityManager,
  type EventSubscriber,
  type FlushEventArgs,
  type TransactionEventArgs,
} from '@mikro-orm/postgresql';

/**
 * Work queued by plain SQL, which creates no entity a commit could be recognised by: a delivery
 * retried or replayed; an export canceled while it renders (its worker looks at once). `announceCommittedWork` tells the workers once the transaction that marked it
 * commits.
 */
export type QueuedWork = 'deliveries' | 'exports';

/** The queued work each transaction marked. */
const marked = new WeakMap<object, Set<unknown>>();

/** Inside a transaction: once it commits, the worker of `work` should look at once. */
export function markQueued(em: EntityManager, work: QueuedWork): void {
  const transaction = em.getTransactionContext<object>();
  if (!transaction) throw new Error('markQueued marks a transaction: call it inside one');
  const works = marked.get(transaction) ?? new Set();
  works.add(work);
  marked.set(transaction, works);
}

/** The work a transaction marked (read once, when it commits). */
function takeQueued(transaction: object): Set<unknown> | undefined {
  const works = marked.get(transaction);
  marked.delete(transaction);
  return works;
}

/**
 * Calls `announce` once a commit has created rows (the entity classes) or marked queued work:
 * after the flush when it ran in its own transaction, after the commit of the enclosing transaction
 * otherwise (before it, a worker would not see the rows). Only creations: the workers' own commits
 * (claims, outcomes) would otherwise wake them again, and an idle instance ran rounds back to back,
 * thousands of statements a second. A nested transaction (a savepoint) reports its own commit: rows
 * created or marked in one are announced then, before the outer commit, and are found by the next poll
 * (nothing in the service nests transactions).
 */
export function announceCommittedWork(announce: (work: Set<unknown>) => void): EventSubscriber {
  /** What flushes inside a transaction created, until it commits. */
  const createdIn = new WeakMap<object, Set<unknown>>();
  return {
    afterFlush({ em, uow }: FlushEventArgs) {
      const created = new Set<unknown>();
      for (const changeSet of uow.getChangeSets()) {
        if (changeSet.type === ChangeSetType.CREATE) created.add(changeSet.meta.class);
      }
      if (created.size === 0) return;
      const transaction = em.getTransactionContext<object>();
      if (!transaction) return announce(created);
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
      announce(new Set<unknown>([...(created ?? []), ...(queued ?? [])]));
    },
  };
}
