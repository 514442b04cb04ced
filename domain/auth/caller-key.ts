import type { Auth } from '../context.ts';

/**
 * Who is calling, as one word (`user:<id>` or `api_key:<id>`): the idempotency store and the
 * rate limiter both count by it, so the two can never disagree.
 */
export function callerKeyOf(auth: Auth): string {
  return `${auth.actor.type}:${auth.actor.id}`;
}
