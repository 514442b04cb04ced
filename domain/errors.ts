import { ConnectionException, DriverException } from '@mikro-orm/core';
/**
 * The one error the business logic raises: what went wrong, in words a caller can act on,
 * and of which kind. It knows nothing of HTTP or tRPC: each kind's row below says, once, what
 * the transports answer with — its HTTP status, its tRPC code and its problem `code` word
 * (`routers/errors.ts` and `rest/problem.ts` read them from here, and nowhere else).
 */

/**
 * tRPC's codes that the kinds map to, as plain words: the domain imports nothing of tRPC
 * (`routers/errors.ts` checks them against tRPC's own).
 */
export type TrpcCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_SUPPORTED'
  | 'TIMEOUT'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'UNPROCESSABLE_CONTENT'
  | 'TOO_MANY_REQUESTS'
  | 'NOT_IMPLEMENTED'
  | 'SERVICE_UNAVAILABLE';

export interface ErrorKindAnswer {
  status: number;
  trpcCode: TrpcCode;
  /** The problem's `code` (a domain error may name a more precise one). */
  code: string;
}

/**
 * THE error table: every kind of error, with what each transport answers. One status per
 * kind. Where two kinds share a tRPC code, the first one listed is the kind that code stands
 * for (tRPC's own errors map back through it). The transport's own refusals (405, 408, 431,
 * 501) are kinds too, so that every answer's `code` comes from this table; a 500 is not: it is
 * an unexpected Error, never a DomainError.
 */
export const ERROR_KINDS = {
  bad_request: { status: 400, trpcCode: 'BAD_REQUEST', code: 'BAD_REQUEST' },
  unauthorized: { status: 401, trpcCode: 'UNAUTHORIZED', code: 'UNAUTHORIZED' },
  forbidden: { status: 403, trpcCode: 'FORBIDDEN', code: 'FORBIDDEN' },
  not_found: { status: 404, trpcCode: 'NOT_FOUND', code: 'NOT_FOUND' },
  method_not_allowed: { status: 405, trpcCode: 'METHOD_NOT_SUPPORTED', code: 'METHOD_NOT_ALLOWED' },
  request_timeout: { status: 408, trpcCode: 'TIMEOUT', code: 'REQUEST_TIMEOUT' },
  conflict: { status: 409, trpcCode: 'CONFLICT', code: 'CONFLICT' },
  payload_too_large: { status: 413, trpcCode: 'PAYLOAD_TOO_LARGE', code: 'PAYLOAD_TOO_LARGE' },
  unsupported_media_type: { status: 415, trpcCode: 'UNSUPPORTED_MEDIA_TYPE', code: 'UNSUPPORTED_MEDIA_TYPE' },
  unprocessable: { status: 422, trpcCode: 'UNPROCESSABLE_CONTENT', code: 'UNPROCESSABLE_CONTENT' },
  too_many_requests: { status: 429, trpcCode: 'TOO_MANY_REQUESTS', code: 'TOO_MANY_REQUESTS' },
  // Node's own refusal of oversized headers (tRPC has no code of its own for it).
  headers_too_large: { status: 431, trpcCode: 'BAD_REQUEST', code: 'REQUEST_HEADER_FIELDS_TOO_LARGE' },
  not_implemented: { status: 501, trpcCode: 'NOT_IMPLEMENTED', code: 'NOT_IMPLEMENTED' },
  unavailable: { status: 503, trpcCode: 'SERVICE_UNAVAILABLE', code: 'SERVICE_UNAVAILABLE' },
} as const satisfies Record<string, ErrorKindAnswer>;

export type DomainErrorKind = keyof typeof ERROR_KINDS;

/** One problem with one input field, as it appears in a problem body's `issues`. */
export interface Issue {
  path: (string | number)[];
  message: string;
}

export class DomainError extends Error {
  readonly kind: DomainErrorKind;
  /** Field issues of a business-rule check (a `bad_request`). */
  readonly issues?: Issue[];
  /** For `too_many_requests` and `unavailable`: when to try again. */
  readonly retryAfterSeconds?: number;
  /** A more precise machine-readable word than the kind's (e.g. IDEMPOTENCY_KEY_REUSED). */
  readonly code?: string;

  constructor(
    kind: DomainErrorKind,
    message: string,
    options: { issues?: Issue[]; retryAfterSeconds?: number; cause?: unknown; code?: string } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    this.kind = kind;
    this.issues = options.issues;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.code = options.code;
  }
}

export function notFound(resource: string, id: string): DomainError {
  return new DomainError('not_found', `${resource} ${id} was not found`);
}

/** A 404 whose message is not "<resource> <id> was not found" (e.g. "Deck … has no intro"). */
export function missing(message: string): DomainError {
  return new DomainError('not_found', message);
}

/** The message of every validation error; its issues say what is wrong. */
export const INVALID_INPUT = 'The request is not valid: see issues';

export function badRequest(message: string, issues?: Issue[]): DomainError {
  return new DomainError('bad_request', message, { issues });
}

/** A 400 with one issue on one field, the message saying which field and why. */
export function invalidField(path: (string | number)[], message: string): DomainError {
  return badRequest(INVALID_INPUT, [{ path, message }]);
}

export function unauthorized(message: string): DomainError {
  return new DomainError('unauthorized', message);
}

export function forbidden(message: string): DomainError {
  return new DomainError('forbidden', message);
}

export function conflict(message: string, cause?: unknown): DomainError {
  return new DomainError('conflict', message, { cause });
}

export function payloadTooLarge(message: string, cause?: unknown): DomainError {
  return new DomainError('payload_too_large', message, { cause });
}

/** A file that is not of a type the operation takes, judged by its content. */
export function unsupportedMediaType(message: string): DomainError {
  return new DomainError('unsupported_media_type', message);
}

export function unprocessable(message: string, cause?: unknown): DomainError {
  return new DomainError('unprocessable', message, { cause });
}

export function tooManyRequests(message: string, retryAfterSeconds: number, code?: string): DomainError {
  return new DomainError('too_many_requests', message, { retryAfterSeconds, code });
}

/** A body that stopped arriving (no byte for the idle timeout): send it again. */
export function requestTimeout(message: string): DomainError {
  return new DomainError('request_timeout', message);
}

/** The service is at a bound it keeps to stay up (or a dependency is down), not broken: retry later. */
export function unavailable(message: string, retryAfterSeconds: number, cause?: unknown): DomainError {
  return new DomainError('unavailable', message, { retryAfterSeconds, cause });
}

const PG_UNREACHABLE =
  /^(timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error)/;

/** True for failures of the database itself (unreachable, shutting down), not of a query. */
export function isDependencyDown(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e instanceof ConnectionException) return true;
    const code = (e as { code?: unknown }).code;
    if (
      typeof code === 'string' &&
      // 57014: statement_timeout (a stalled or overloaded database), as a 503.
      ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57014', '57P01', '57P03'].includes(code)
    ) {
      return true;
    }
    if (e instanceof DriverException && /connection|terminat/i.test(e.message)) return true;
    // pg and pg-pool time-outs are plain errors, known only by their messages.
    if (PG_UNREACHABLE.test(e.message)) return true;
  }
  return false;
}

/** What a caller is told when the database (or another dependency) is down: retry, no detail. */
export const DEPENDENCY_DOWN = 'A service this request depends on is unavailable; try again shortly';

/**
 * A failure of the database itself (`isDependencyDown`) as the error every transport answers:
 * a 503 to retry in a few seconds (its cause is logged, never answered); undefined for any other.
 */
export function dependencyDown(error: unknown): DomainError | undefined {
  return isDependencyDown(error) ? unavailable(DEPENDENCY_DOWN, 5, error) : undefined;
}

/** What a caller is told of an unexpected error (its cause is logged, never answered). */
export const UNEXPECTED_ERROR = 'An unexpected error occurred';
