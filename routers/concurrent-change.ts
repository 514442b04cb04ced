import {
  DeadlockException,
  DriverException,
  ForeignKeyConstraintViolationException,
  NotFoundError,
  UniqueConstraintViolationException,
} from '@mikro-orm/core';
import { TRPCError } from '@trpc/server';

/**
 * The one place where a database error that means "another request changed the same data at
 * the same time" becomes a client error instead of a 500, for every procedure a handler did
 * not already guard with a lock: a unique or foreign-key violation, a serialization failure
 * or deadlock, a lock timeout (409: try again, it may now succeed or fail differently), and a
 * row that vanished under `findOneOrFail` (404).
 */
export function concurrentChangeError(error: unknown): TRPCError | undefined {
  if (error instanceof UniqueConstraintViolationException) {
    return new TRPCError({
      code: 'CONFLICT',
      message: 'Another request created the same thing at the same time; read it again and retry',
      cause: error,
    });
  }
  if (error instanceof ForeignKeyConstraintViolationException) {
    return new TRPCError({
      code: 'CONFLICT',
      message: 'Something this request refers to was deleted by another request meanwhile',
      cause: error,
    });
  }
  if (
    error instanceof DeadlockException ||
    (error instanceof DriverException && (error.code === '55P03' || error.code === '40001'))
  ) {
    return new TRPCError({
      code: 'CONFLICT',
      message: 'Another request was changing the same data at the same time; retry',
      cause: error,
    });
  }
  if (error instanceof NotFoundError) {
    return new TRPCError({
      code: 'NOT_FOUND',
      message: 'It was deleted by another request meanwhile',
      cause: error,
    });
  }
  return undefined;
}
