import { TRPCError } from '@trpc/server';
import { concurrentChangeError } from '../domain/concurrent-change.ts';
import { DomainError, type DomainErrorKind, dependencyDown, ERROR_KINDS } from '../domain/errors.ts';

/** A kind's tRPC code, from the one error table (the `satisfies` holds its words to tRPC's own). */
function trpcCodeOf(kind: DomainErrorKind): TRPCError['code'] {
  return ERROR_KINDS[kind].trpcCode satisfies TRPCError['code'];
}

/**
 * The only place a `TRPCError` is made (lint checks it): a domain error, a database error
 * caused by a concurrent change, or the database being down (503), becomes the tRPC error of its
 * kind, with the domain error as its cause (the issues and `Retry-After` travel there). Anything
 * else stays as it was.
 */
export function toTrpcError(error: TRPCError): TRPCError {
  const cause =
    error.cause instanceof DomainError
      ? error.cause
      : (concurrentChangeError(error.cause) ?? dependencyDown(error.cause));
  if (!cause || error.code !== 'INTERNAL_SERVER_ERROR') return error;
  return new TRPCError({ code: trpcCodeOf(cause.kind), message: cause.message, cause });
}

/** A domain error raised before the procedure runs (by our own middleware), as the tRPC error of its kind. */
export function trpcErrorFrom(error: DomainError): TRPCError {
  return new TRPCError({ code: trpcCodeOf(error.kind), message: error.message, cause: error });
}

/** The domain error behind a tRPC error, if there is one. */
export function domainErrorOf(error: TRPCError): DomainError | undefined {
  return error.cause instanceof DomainError ? error.cause : undefined;
}

/** For the /trpc endpoint's own refusals, made before any procedure runs. */
export function trpcBadRequest(message: string): TRPCError {
  return new TRPCError({ code: 'BAD_REQUEST', message });
}
