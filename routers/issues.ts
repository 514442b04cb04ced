import type { TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import { DomainError, type Issue } from '../domain/errors.ts';

/** The field issues behind a validation error, from zod or from a business-rule check. */
export function issuesOf(error: TRPCError): Issue[] | undefined {
  const cause = error.cause;
  if (cause instanceof ZodError) {
    return cause.issues.flatMap((issue) => {
      const path = issue.path.filter((segment): segment is string | number => typeof segment !== 'symbol');
      // One issue per unknown field, on that field's path, rather than one on the object.
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((key) => ({ path: [...path, key], message: 'Unknown field' }));
      }
      return [{ path, message: issue.message }];
    });
  }
  if (cause instanceof DomainError) return cause.issues;
  return undefined;
}
