import { TRPCError } from '@trpc/server';

/** One problem with one input field, as it appears in a problem body's `issues`. */
export interface Issue {
  path: (string | number)[];
  message: string;
}

/** Carries field issues from a business-rule check (not zod) to the error shaper. */
export class InputIssues extends Error {
  readonly issues: Issue[];
  constructor(issues: Issue[]) {
    super(issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    this.name = 'InputIssues';
    this.issues = issues;
  }
}

/** Tells the transport to send `Retry-After`. */
export class RetryLater extends Error {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super(`retry after ${retryAfterSeconds} s`);
    this.name = 'RetryLater';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export function notFound(resource: string, id: string): TRPCError {
  return new TRPCError({ code: 'NOT_FOUND', message: `${resource} ${id} was not found` });
}

export function badRequest(message: string, issues?: Issue[]): TRPCError {
  return new TRPCError({ code: 'BAD_REQUEST', message, cause: issues ? new InputIssues(issues) : undefined });
}

export function conflict(message: string): TRPCError {
  return new TRPCError({ code: 'CONFLICT', message });
}

export function tooManyRequests(message: string, retryAfterSeconds: number): TRPCError {
  return new TRPCError({ code: 'TOO_MANY_REQUESTS', message, cause: new RetryLater(retryAfterSeconds) });
}
