import type { Auth } from '../context.ts';

/**
 * Who is calling, as one word: the idempotency store and the rate limiter both count by it,
 * so the two can never disagree. A user today; an API key will be `api_key:<id>`.
 */
export function callerKeyOf(auth: Auth): string {
  return `user:${auth.userId}`;
}
