import { v7 as uuidv7 } from 'uuid';

/**
 * New primary keys are UUIDv7: time-ordered, so inserts stay at the right edge of the
 * index and ids sort in creation order. Assigned in the application, so a new row's id is
 * known before the flush (events written beside it need it).
 */
export function newId(): string {
  return uuidv7();
}
