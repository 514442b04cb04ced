import type { Context as KoaContext } from 'koa';
import { callerKeyOf } from '../domain/auth/access.ts';
import type { Auth } from '../domain/context.ts';
import { type DomainError, tooManyRequests } from '../domain/errors.ts';
import type { RateLimiter } from './rate-limiter.ts';

/**
 * Counts a signed-in caller's request (`calls` of them for a /trpc batch, `heavyCalls` heavy)
 * and sets the RateLimit-* headers on the answer, whatever it turns out to be. Answers the
 * 429 to throw when a limit is passed (nothing has run then), or undefined.
 */
export async function countRequest(
  ctx: KoaContext,
  limiter: RateLimiter,
  auth: Auth,
  calls: number,
  heavyCalls: number,
): Promise<DomainError | undefined> {
  const decision = await limiter.consume(callerKeyOf(auth), auth.organizationId, calls, heavyCalls);
  ctx.set('RateLimit-Limit', String(decision.limit));
  ctx.set('RateLimit-Remaining', String(decision.remaining));
  ctx.set('RateLimit-Reset', String(decision.resetSeconds));
  if (!decision.refusedBy) return undefined;
  return tooManyRequests(
    decision.refusedBy === 'caller'
      ? `Too many requests: at most ${decision.limit} a minute; try again in ${decision.resetSeconds} s`
      : `Too many heavy requests for this organization: at most ${decision.limit} a minute; try again in ${decision.resetSeconds} s`,
    decision.resetSeconds,
  );
}
