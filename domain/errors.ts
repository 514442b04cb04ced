/**
 * The one error the business logic raises: what went wrong, in words a caller can act on,
 * and of which kind. It knows nothing of HTTP or tRPC; each transport maps the kind once
 * (`routers/errors.ts` to a tRPC code, `rest/problem.ts` to a status).
 */
export type DomainErrorKind =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unprocessable'
  | 'too_many_requests'
  | 'unavailable';

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

/** The service is at a bound it keeps to stay up (or a dependency is down), not broken: retry later. */
export function unavailable(message: string, retryAfterSeconds: number, cause?: unknown): DomainError {
  return new DomainError('unavailable', message, { retryAfterSeconds, cause });
}
