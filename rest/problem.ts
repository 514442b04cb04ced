import { STATUS_CODES } from 'node:http';
import { TRPCError } from '@trpc/server';
import type { Context as KoaContext } from 'koa';
import { z } from 'zod';
import {
  DomainError,
  type DomainErrorKind,
  dependencyDown,
  ERROR_KINDS,
  type ErrorKindAnswer,
  INVALID_INPUT,
  type Issue,
  UNEXPECTED_ERROR,
} from '../domain/errors.ts';
import { domainErrorOf } from '../routers/errors.ts';
import { boundedIssues, cut, issuesOf } from '../routers/issues.ts';

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

/**
 * The one error table (domain/errors.ts) read backwards: the kind a status stands for (each
 * kind has its own), and the kind a tRPC code stands for (the first listed, where two share it).
 */
const KIND_BY_STATUS = new Map<number, DomainErrorKind>();
const KIND_BY_TRPC_CODE = new Map<string, DomainErrorKind>();
for (const [kind, answer] of Object.entries(ERROR_KINDS) as [DomainErrorKind, ErrorKindAnswer][]) {
  KIND_BY_STATUS.set(answer.status, kind);
  if (!KIND_BY_TRPC_CODE.has(answer.trpcCode)) KIND_BY_TRPC_CODE.set(answer.trpcCode, kind);
}

/** The problem `code` of a status: its kind's; a status of no kind (a 500) by its class. */
function codeOfStatus(status: number): string {
  const kind = KIND_BY_STATUS.get(status);
  if (kind) return ERROR_KINDS[kind].code;
  return status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST';
}

/** The status of a tRPC error of tRPC's own (no domain error behind it); anything unknown a 500. */
function statusOfTrpcCode(code: TRPCError['code']): number {
  // A parse error is a client's malformed body: a bad request.
  const kind = KIND_BY_TRPC_CODE.get(code === 'PARSE_ERROR' ? 'BAD_REQUEST' : code);
  return kind ? ERROR_KINDS[kind].status : 500;
}

/** Longest detail a problem carries: whatever a message echoes, an answer stays small. */
const MAX_DETAIL = 1000;

/** A problem; its detail and issues bounded (`boundedIssues`), so no answer grows with its input. */
export function problem(status: number, detail: string, issues?: Issue[], code?: string): Problem {
  return {
    type: 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    code: code ?? codeOfStatus(status),
    detail: cut(detail, MAX_DETAIL),
    ...(issues ? { issues: boundedIssues(issues) } : {}),
  };
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
    const down = dependencyDown(error.cause);
    if (down) return problemFromError(down);
    return { problem: problem(500, UNEXPECTED_ERROR), unexpected: true };
  }
  const domainError = domainErrorOf(error);
  const status = domainError ? ERROR_KINDS[domainError.kind].status : statusOfTrpcCode(error.code);
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
 * hand-written route or the body reader), a 4xx http error (koa, the router) with its status, and
 * anything else a 500 (or a 503 when the database is down) with a generic detail.
 */
export function problemFromError(error: unknown): ShapedError {
  if (error instanceof TRPCError) return problemFromTrpcError(error);
  if (error instanceof DomainError) {
    const status = ERROR_KINDS[error.kind].status;
    return {
      problem: problem(status, error.message, error.issues, error.code),
      retryAfterSeconds: error.retryAfterSeconds,
      unexpected: status >= 500,
    };
  }
  const status = httpStatusOf(error);
  if (status !== undefined && status < 500) {
    return { problem: problem(status, (error as Error).message), unexpected: false };
  }
  const down = dependencyDown(error);
  if (down) return problemFromError(down);
  return { problem: problem(500, UNEXPECTED_ERROR), unexpected: true };
}

/**
 * Any error as the domain error of its kind: the kind of the status `problemFromError` gives it
 * (the one table read backwards), with the same detail, issues, `code` and Retry-After; undefined
 * for an unexpected error (a 500). What /api answers as a problem, the /trpc edge answers from
 * this in tRPC's shape (rest/trpc-endpoint.ts), so the two never disagree on a status.
 */
export function domainErrorFrom(error: unknown): DomainError | undefined {
  if (error instanceof DomainError) return error;
  const { problem: shaped, retryAfterSeconds } = problemFromError(error);
  const kind = KIND_BY_STATUS.get(shaped.status);
  if (!kind) return undefined;
  return new DomainError(kind, shaped.detail, {
    issues: shaped.issues,
    retryAfterSeconds,
    code: shaped.code,
    cause: error,
  });
}

/** The status of an http error (koa's `ctx.throw`, @koa/router's 405). */
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
