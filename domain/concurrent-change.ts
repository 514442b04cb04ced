import {
  DeadlockException,
  DriverException,
  ForeignKeyConstraintViolationException,
  NotFoundError,
  UniqueConstraintViolationException,
} from '@mikro-orm/core';
import { conflict, type DomainError, missing } from './errors.ts';

/**
 * The one place where a database error that means "another request changed the same data at
 * the same time" becomes a client error instead of a 500, for every operation a handler did
 * not already guard with a lock: a unique or foreign-key violation, a serialization failure
 * or deadlock, a lock timeout (409: try again, it may now succeed or fail differently), and a
 * row that vanished under `findOneOrFail` (404).
 */
export function concurrentChangeError(error: unknown): DomainError | undefined {
  if (error instanceof UniqueConstraintViolationException) {
    return conflict(
      'Another request created the same thing at the same time; read it again and retry',
      error,
    );
  }
  if (error instanceof ForeignKeyConstraintViolationException) {
    return conflict('Something this request refers to was deleted by another request meanwhile', error);
  }
  if (
    error instanceof DeadlockException ||
    (error instanceof DriverException && (error.code === '55P03' || error.code === '40001'))
  ) {
    return conflict('Another request was changing the same data at the same time; retry', error);
  }
  if (error instanceof NotFoundError) {
    const gone = missing('It was deleted by another request meanwhile');
    return Object.assign(gone, { cause: error });
  }
  return undefined;
}
