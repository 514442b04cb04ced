import { wrap } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventSubject, EventType, PendingEvent } from './events/events.ts';
import { type EventScope, recordEvent } from './events/events.ts';

/**
 * The one shape of a change (docs/decisions/044-timestamps-in-the-database.md): in a transaction, the
 * row → the change → written → the answer, built from the stored row → its event, with that
 * answer as payload → flush. Timestamps are the database's (entities/base.ts): the row is
 * written and read back before the answer is built, so the answer and its event carry the
 * stored `createdAt`/`updatedAt`.
 */

/** The event of a change: its payload (usually the answer) typed by its type (domain/events/event-payloads.ts). */
export type MutationEvent = PendingEvent;

/**
 * What a change did: `true` changed a field, `false` nothing (answered as it is, no write, no
 * event), `'always'` counts as a change even when every field is equal (a save that is always news).
 */
export type Changed = boolean | 'always';

interface Stored {
  updatedAt: Date;
}

type Answer = Record<string, unknown>;

/** Writes the unit of work and reads `entity` back, with the timestamps the database set. */
export async function writeAndReload(em: EntityManager, entity: object): Promise<void> {
  await em.flush();
  await em.refresh(entity);
}

/** Records the events of a change (the caller flushes). */
export function recordEvents(
  em: EntityManager,
  scope: EventScope,
  events: MutationEvent | MutationEvent[],
): void {
  for (const { type, ...subject } of [events].flat()) {
    // Each was checked against its type's payload where it was built: TypeScript cannot follow
    // the pairing of `type` and `subject` through the destructuring.
    recordEvent(em, scope, type, subject as EventSubject<EventType>);
  }
}

/**
 * Changes one row of the caller's. `find` gives the row (locked; NOT_FOUND alike for a missing
 * row and another organization's; a save may create it), `change` applies the change and says
 * whether it changed anything.
 */
export async function changeOne<E extends object, A extends Answer>(
  em: EntityManager,
  scope: EventScope,
  steps: {
    find: (em: EntityManager) => Promise<E>;
    change: (entity: E, em: EntityManager) => Changed | Promise<Changed>;
    answer: (entity: E) => A | Promise<A>;
    event: (entity: E, answer: A) => MutationEvent | MutationEvent[];
  },
): Promise<A> {
  return em.transactional(async (em) => {
    const entity = await steps.find(em);
    const changed = await steps.change(entity, em);
    if (!changed) return steps.answer(entity);
    // Equal fields write nothing; this asks for the write (the trigger sets the time, not this
    // value). A new row (`find` may create one) is inserted anyway, with the database's defaults.
    if (changed === 'always' && wrap(entity).isManaged())
      (entity as unknown as Stored).updatedAt = new Date();
    await writeAndReload(em, entity);
    return answerWithEvent(em, scope, entity, steps);
  });
}

/** Creates one row: `create` persists it (after its checks and locks). */
export async function createOne<E extends object, A extends Answer>(
  em: EntityManager,
  scope: EventScope,
  steps: {
    create: (em: EntityManager) => E | Promise<E>;
    answer: (entity: E) => A | Promise<A>;
    event: (entity: E, answer: A) => MutationEvent | MutationEvent[];
  },
): Promise<A> {
  return em.transactional(async (em) => {
    const entity = await steps.create(em);
    em.persist(entity);
    // An insert reads its defaults back itself (RETURNING): one flush writes and fills it.
    await em.flush();
    return answerWithEvent(em, scope, entity, steps);
  });
}

/** Deletes one row of the caller's; the event carries its last answer, which is returned. */
export async function removeOne<E extends object, A extends Answer>(
  em: EntityManager,
  scope: EventScope,
  steps: {
    find: (em: EntityManager) => Promise<E>;
    answer: (entity: E) => A | Promise<A>;
    event: (entity: E, answer: A) => MutationEvent | MutationEvent[];
  },
): Promise<A> {
  return em.transactional(async (em) => {
    const entity = await steps.find(em);
    const answer = await steps.answer(entity);
    recordEvents(em, scope, steps.event(entity, answer));
    em.remove(entity);
    await em.flush();
    return answer;
  });
}

/** The last steps of a change: its answer, its event with that answer, the flush. */
async function answerWithEvent<E extends object, A extends Answer>(
  em: EntityManager,
  scope: EventScope,
  entity: E,
  steps: {
    answer: (entity: E) => A | Promise<A>;
    event: (entity: E, answer: A) => MutationEvent | MutationEvent[];
  },
): Promise<A> {
  const answer = await steps.answer(entity);
  recordEvents(em, scope, steps.event(entity, answer));
  await em.flush();
  return answer;
}
