import type { TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import { DomainError, type Issue } from '../domain/errors.ts';
import { MAX_ISSUES } from './shared.schema.ts';

/** Longest field name or message an issue repeats: a hostile name must not make a huge answer. */
const MAX_ISSUE_TEXT = 200;

/** The field issues behind a validation error, from zod or from a business-rule check: at most MAX_ISSUES. */
export function issuesOf(error: TRPCError): Issue[] | undefined {
  const cause = error.cause;
  if (cause instanceof ZodError) {
    const issues: Issue[] = [];
    for (const issue of cause.issues) {
      if (issues.length >= MAX_ISSUES) break;
      const path = issue.path.filter((segment): segment is string | number => typeof segment !== 'symbol');
      // One issue per unknown field, on that field's path, rather than one on the object.
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys.slice(0, MAX_ISSUES - issues.length)) {
          issues.push({ path: [...path, key], message: 'Unknown field' });
        }
      } else issues.push({ path, message: issue.message });
    }
    return boundedIssues(issues);
  }
  if (cause instanceof DomainError) return cause.issues && boundedIssues(cause.issues);
  return undefined;
}

/** Most characters all the issues of one answer may hold, and the deepest path one shows. */
const MAX_ISSUES_TEXT = 2_000;
const MAX_PATH_SEGMENTS = 8;

/**
 * Issues as an answer may carry them: at most MAX_ISSUES, each path its last MAX_PATH_SEGMENTS
 * segments, each name and message cut to MAX_ISSUE_TEXT characters, and no more issues than fit
 * in MAX_ISSUES_TEXT characters (the first always does). Every error answer (REST and tRPC) passes
 * here, so none grows with its input.
 */
export function boundedIssues(issues: readonly Issue[]): Issue[] {
  const bounded: Issue[] = [];
  let size = 0;
  for (const { path, message } of issues.slice(0, MAX_ISSUES)) {
    const issue = {
      path: path
        .slice(-MAX_PATH_SEGMENTS)
        .map((segment) => (typeof segment === 'string' ? cut(segment) : segment)),
      message: cut(message),
    };
    size +=
      issue.message.length + issue.path.reduce<number>((sum, segment) => sum + String(segment).length + 3, 0);
    if (bounded.length > 0 && size > MAX_ISSUES_TEXT) break;
    bounded.push(issue);
  }
  return bounded;
}

/** Text cut to a bounded length, marked with an ellipsis where it was cut. */
export function cut(text: string, max = MAX_ISSUE_TEXT): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
