import { STATUS_CODES } from 'node:http';
import { ConnectionException, DriverException } from '@mikro-orm/core';
import { TRPCError } from '@trpc/server';
import type { Context as KoaContext } from 'koa';
import { z } from 'zod';
import { DomainError, type DomainErrorKind, INVALID_INPUT, type Issue } from '../domain/errors.ts';
import { domainErrorOf } from '../routers/errors.ts';
import { boundedIssues, cut, issuesOf } from '../routers/issues.ts';

/** An error answered as a problem with its own status and detail (the body and transport checks). */
export class ProblemError extends Error {
  readonly status: number;
  readonly expose = true;
  constructor(status: number, detail: string) {
    super(detail);
    this.status = status;
  }
}

/** RFC 9457 problem details: the one error body of every /api route. */
export interface Problem {
  type: 'about:blank';
  title: string;
  status: number;
  code: string;
  detail: string;
  issues?: Issue[];
}

export const problemSchema = z
  .object({
    type: z.literal('about:blank'),
    title: z.string(),
    status: z.int(),
    code: z.string().meta({ description: 'Stable machine-readable word, e.g. NOT_FOUND' }),
    detail: z.string(),
    issues: z
      .array(z.object({ path: z.array(z.union([z.string(), z.number()])), message: z.string() }))
      .optional()
      .meta({ description: 'Present on validation errors: one entry per offending field' }),
  })
  .meta({ description: 'RFC 9457 problem details' });

const CODE_BY_STATUS: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'REQUEST_TIMEOUT',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  431: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
  500: 'INTERNAL_SERVER_ERROR',
  501: 'NOT_IMPLEMENTED',
  503: 'SERVICE_UNAVAILABLE',
};

/** Longest detail a problem carries: whatever a message echoes, an answer stays small. */
const MAX_DETAIL = 1000;

/** A problem; its detail and issues bounded (`boundedIssues`), so no answer grows with its input. */
export function problem(status: number, detail: string, issues?: Issue[], code?: string): Problem {
  return {
    type: 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    code: code ?? CODE_BY_STATUS[status] ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST'),
    detail: cut(detail, MAX_DETAIL),
    ...(issues ? { issues: boundedIssues(issues) } : {}),
  };
}

/** The status each kind of domain error answers with. */
const STATUS_BY_KIND: Record<DomainErrorKind, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  too_many_requests: 429,
  unavailable: 503,
};

/** The status a tRPC error code stands for (PARSE_ERROR is a client's malformed body). */
const STATUS_BY_TRPC_CODE: Partial<Record<TRPCError['code'], number>> = {
  PARSE_ERROR: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_SUPPORTED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE_CONTENT: 422,
  TOO_MANY_REQUESTS: 429,
  NOT_IMPLEMENTED: 501,
  SERVICE_UNAVAILABLE: 503,
};

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

export interface ShapedError {
  problem: Problem;
  retryAfterSeconds?: number;
  /** Unexpected: log it with its stack (the client sees only a generic detail). */
  unexpected: boolean;
}

/** Maps any error a procedure raised to the problem the client sees. Never leaks internals. */
export function problemFromTrpcError(error: TRPCError): ShapedError {
  if (error.code === 'INTERNAL_SERVER_ERROR') {
    if (isDependencyDown(error.cause)) {
      return {
        problem: problem(503, 'A service this request depends on is unavailable; try again shortly'),
        retryAfterSeconds: 5,
        unexpected: true,
      };
    }
    return { problem: problem(500, 'An unexpected error occurred'), unexpected: true };
  }
  const domainError = domainErrorOf(error);
  const status = domainError ? STATUS_BY_KIND[domainError.kind] : (STATUS_BY_TRPC_CODE[error.code] ?? 500);
  const issues = issuesOf(error);
  const detail =
    error.code === 'PARSE_ERROR'
      ? 'The request body is not valid JSON'
      : issues && error.cause?.name === 'ZodError'
        ? INVALID_INPUT
        : error.message;
  const retryAfterSeconds = domainError?.retryAfterSeconds;
  return {
    problem: problem(status, detail, issues, domainError?.code),
    retryAfterSeconds,
    unexpected: status >= 500,
  };
}

/**
 * THE error path of every /api route: whatever a route, a procedure or the body reader threw
 * becomes the problem the client sees — a tRPC error (from a procedure), a domain error (from a
 * hand-written route), a 4xx http error (koa, the router, the body reader) with its status, and
 * anything else a 500 (or a 503 when the database is down) with a generic detail.
 */
export function problemFromError(error: unknown): ShapedError {
  if (error instanceof TRPCError) return problemFromTrpcError(error);
  if (error instanceof DomainError) {
    const status = STATUS_BY_KIND[error.kind];
    return {
      problem: problem(status, error.message, error.issues, error.code),
      retryAfterSeconds: error.retryAfterSeconds,
      unexpected: status >= 500,
    };
  }
  const status = httpStatusOf(error);
  if (status !== undefined && status < 500) {
    const { message, issues } = error as { message: string; issues?: Issue[] };
    return { problem: problem(status, message, issues), unexpected: false };
  }
  if (isDependencyDown(error)) {
    return {
      problem: problem(503, 'A service this request depends on is unavailable; try again shortly'),
      retryAfterSeconds: 5,
      unexpected: true,
    };
  }
  return { problem: problem(500, 'An unexpected error occurred'), unexpected: true };
}

/** The status of an http error (koa's `ctx.throw`, @koa/router's 405, the body reader's 413). */
function httpStatusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, expose } = error as { status?: unknown; expose?: unknown };
  return typeof status === 'number' && expose !== false ? status : undefined;
}

export function sendProblem(ctx: KoaContext, value: Problem, retryAfterSeconds?: number): void {
  ctx.status = value.status;
  ctx.type = 'application/problem+json';
  ctx.body = JSON.stringify(value);
  if (retryAfterSeconds !== undefined) ctx.set('Retry-After', String(retryAfterSeconds));
}
