import { isDeepStrictEqual } from 'node:util';

/** An entity with the timestamps of `entities/base.ts`. */
interface Timestamped {
  updatedAt: Date;
}

/**
 * Applies the fields of `changes` that are present (not `undefined`) and differ from the
 * entity's (deeply, for JSON values), and says whether anything changed. When something did,
 * `updatedAt` moves to now, so the answer and the event built after it carry the stored value.
 * An update that changes nothing leaves the entity as it was: no write, no event.
 */
export function applyChanges<T extends Timestamped>(
  entity: T,
  changes: { [K in keyof T]?: T[K] | undefined },
): boolean {
  let changed = false;
  for (const key of Object.keys(changes) as (keyof T)[]) {
    const value = changes[key];
    if (value === undefined || isDeepStrictEqual(entity[key], value)) continue;
    entity[key] = value as T[keyof T];
    changed = true;
  }
  if (changed) touch(entity);
  return changed;
}

/** Marks a change made by hand (not through `applyChanges`): `updatedAt` is now. */
export function touch(entity: Timestamped): void {
  entity.updatedAt = new Date();
}
