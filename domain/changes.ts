import { isDeepStrictEqual } from 'node:util';

/**
 * Applies the fields of `changes` that are present (not `undefined`) and differ from the
 * entity's (deeply, for JSON values), and says whether anything changed. An update that changes
 * nothing leaves the entity as it was: no write, no event. `updatedAt` is the database's
 * (entities/base.ts): it moves when the row is written.
 */
export function applyChanges<T extends object>(
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
  return changed;
}
