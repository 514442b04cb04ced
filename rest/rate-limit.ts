import type { Context as KoaContext } from 'koa';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { callerKeyOf } from '../domain/auth/access.ts';
import type { Auth } from '../domain/context.ts';
import { type DomainError, tooManyRequests } from '../domain/errors.ts';

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

/** What a request's headers say about the limit nearest to being reached (and whether it was passed). */
export interface RateLimitDecision {
  limit: number;
  remaining: number;
  /** Seconds until that limit's window starts again. */
  resetSeconds: number;
  /** Set when the request is refused: which limit it passed. */
  refusedBy?: 'caller' | 'organization';
}

/** Requests per minute: per caller, and heavy ones per organization. */
export interface RateLimits {
  perCallerPerMinute: number;
  heavyPerOrganizationPerMinute: number;
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

const WINDOW_SECONDS = 60;

/**
 * The per-minute limits (api.md, "Rate limits"), counted in this instance's memory by
 * rate-limiter-flexible: fixed one-minute windows per caller and, for heavy procedures, per
 * organization. With N instances behind a balancer a caller may make up to N times the limit.
 */
export function createRateLimiter(config: RateLimits) {
  const perCaller = new RateLimiterMemory({ points: config.perCallerPerMinute, duration: WINDOW_SECONDS });
  const heavy = new RateLimiterMemory({
    points: config.heavyPerOrganizationPerMinute,
    duration: WINDOW_SECONDS,
  });
  return {
    /**
     * Counts `calls` requests of one caller, `heavyCalls` of them heavy, against both limits.
     * The organization's heavy budget is only touched once the caller's own limit let them through.
     */
    async consume(
      callerKey: string,
      organizationId: string,
      calls: number,
      heavyCalls: number,
    ): Promise<RateLimitDecision> {
      const caller = await settle(perCaller.consume(callerKey, calls));
      const callerDecision = decision(caller, config.perCallerPerMinute);
      if (!caller.passed) return { ...callerDecision, refusedBy: 'caller' };
      if (heavyCalls === 0) return callerDecision;
      const organization = await settle(heavy.consume(organizationId, heavyCalls));
      const organizationDecision = decision(organization, config.heavyPerOrganizationPerMinute);
      if (!organization.passed) return { ...organizationDecision, refusedBy: 'organization' };
      // The headers speak of whichever limit is nearer.
      return organizationDecision.remaining < callerDecision.remaining
        ? organizationDecision
        : callerDecision;
    },
  };
}

/** rate-limiter-flexible rejects with the counter's state when the limit is passed. */
async function settle(pending: Promise<RateLimiterRes>): Promise<{ res: RateLimiterRes; passed: boolean }> {
  try {
    return { res: await pending, passed: true };
  } catch (error) {
    if (error instanceof RateLimiterRes) return { res: error, passed: false };
    throw error;
  }
}

function decision({ res }: { res: RateLimiterRes }, limit: number): RateLimitDecision {
  return {
    limit,
    remaining: res.remainingPoints,
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  };
}
