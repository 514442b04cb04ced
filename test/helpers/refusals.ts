import { expect } from 'vitest';
import { expectProblem, type HttpResponse } from './http-client.ts';

/** A refusal to come back later: the problem of `status` and `code`, with Retry-After: 5. Its problem. */
export function expectRetryLater(response: HttpResponse, status: number, code: string) {
  const problem = expectProblem(response, status, code);
  expect(response.headers.get('retry-after')).toBe('5');
  return problem;
}
