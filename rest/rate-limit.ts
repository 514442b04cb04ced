import type { Context as KoaContext } from 'koa';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { callerKeyOf } from '../domain/auth/access.ts';
import type { Auth } from '../domain/context.ts';
import { type DomainError, tooManyRequests } from '../domain/errors.ts';
import { groupCommit } from '../domain/group-commit.ts';
import type { Logger } from '../domain/ports/logger.ts';
import type { SqlQueryable } from '../domain/prepared-statements.ts';

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

/** Requests per minute: per caller, and heavy ones per organization, and where they are counted. */
export interface RateLimits {
  perCallerPerMinute: number;
  heavyPerOrganizationPerMinute: number;
  /** `postgres`: shared by every instance (needs `shared`); `memory`: this instance alone. */
  store?: 'postgres' | 'memory';
}

/** The shared store: statements on the database every instance uses, and where to warn. */
export interface SharedCounterStore {
  queries: () => Promise<SqlQueryable>;
  logger: Logger;
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

const WINDOW_SECONDS = 60;
/** How often, at most, an unreachable store is logged while it stays so. */
const WARN_EVERY_MS = 30_000;

/**
 * The per-minute limits (api.md, "Rate limits"; decision 013): fixed one-minute windows per
 * caller and, for heavy procedures, per organization, counted by rate-limiter-flexible. With
 * the `postgres` store the counters are rows every instance shares (atomic upserts, grouped,
 * in an unlogged table); while the database cannot be reached, each instance counts alone in
 * memory (the library's insurance limiter) and logs a warning.
 */
export function createRateLimiter(config: RateLimits, shared?: SharedCounterStore) {
  const counter = (keyPrefix: string, points: number) => {
    const memory = new RateLimiterMemory({ keyPrefix, points, duration: WINDOW_SECONDS });
    if (config.store === 'memory' || !shared) return memory;
    return new GroupedPostgresCounter(
      {
        tableName: TABLE,
        tableCreated: true,
        keyPrefix,
        points,
        duration: WINDOW_SECONDS,
        insuranceLimiter: memory,
      },
      warnWhenUnreachable(shared),
    );
  };
  const perCaller = counter('caller', config.perCallerPerMinute);
  const heavy = counter('heavy', config.heavyPerOrganizationPerMinute);
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

const TABLE = 'rate_limit_counter';
/** One statement adds the counts of many requests (group commit), keys in a fixed order. */
const ADD_COUNTS = `insert into ${TABLE} as c (key, points, expire)
  select k, n, $3::bigint from unnest($1::varchar[], $2::int[]) as t(k, n) order by k
  on conflict (key) do update set
    points = case when c.expire <= $4 then excluded.points else c.points + excluded.points end,
    expire = case when c.expire <= $4 then excluded.expire else c.expire end
  returning key, points, expire`;
const MAX_REQUESTS_A_STATEMENT = 1000;

interface Count {
  key: string;
  points: number;
  msDuration: number;
}

/**
 * rate-limiter-flexible's PostgreSQL limiter (its row layout, insurance limiter and expired-row
 * sweep), with its one upsert a request replaced by group commit: requests that arrive while a
 * statement is under way are counted together by the next, one row per key, so a busy instance
 * sends a few statements where it would send thousands (`npm run bench:http`, decision 013).
 * Each request still gets the count it would have had alone: the total after the statement
 * less what later requests of the same batch added.
 */
class GroupedPostgresCounter extends RateLimiterPostgres {
  readonly #add: (count: Count) => Promise<{ rows: { points: number; expire: number }[] }>;

  constructor(
    options: Omit<ConstructorParameters<typeof RateLimiterPostgres>[0], 'storeClient'>,
    store: SqlQueryable,
  ) {
    super({ ...options, storeClient: store, storeType: 'pool' });
    this.#add = groupCommit(async (counts: Count[]) => {
      const perKey = new Map<string, number>();
      for (const { key, points } of counts) perKey.set(key, (perKey.get(key) ?? 0) + points);
      const now = Date.now();
      const { rows } = await store.query<{ key: string; points: number; expire: string }>({
        name: 'rate_limit_add_counts',
        text: ADD_COUNTS,
        values: [[...perKey.keys()], [...perKey.values()], now + counts[0]!.msDuration, now],
      });
      const totals = new Map(
        rows.map((row) => [row.key, { points: row.points, expire: Number(row.expire) }]),
      );
      // Walk back: each request's count is the total less what came after it in this batch.
      const answers = new Array(counts.length);
      for (let i = counts.length - 1; i >= 0; i -= 1) {
        const { key, points } = counts[i]!;
        const total = totals.get(key)!;
        answers[i] = { rows: [{ points: total.points, expire: total.expire }] };
        total.points -= points;
      }
      return answers;
    }, MAX_REQUESTS_A_STATEMENT);
  }

  /** Called by the library for each consume; `forceExpire` (set, block: unused here) keeps its own path. */
  _upsert(key: string, points: number, msDuration: number, forceExpire = false): Promise<unknown> {
    if (forceExpire) {
      return (
        RateLimiterPostgres.prototype as unknown as { _upsert: (...args: unknown[]) => Promise<unknown> }
      )._upsert.call(this, key, points, msDuration, true);
    }
    return this.#add({ key, points, msDuration });
  }
}

/**
 * The store client rate-limiter-flexible calls (`query({name, text, values})`): the service's
 * own pool, whose per-statement deadline bounds a stalled database. A failure makes the library
 * count in memory; it is logged here, at most every 30 s, and once more when the store is back.
 */
function warnWhenUnreachable({ queries, logger }: SharedCounterStore): SqlQueryable {
  let lastWarning = 0;
  let failing = false;
  return {
    async query(statement) {
      try {
        const result = await (await queries()).query(statement);
        if (failing) {
          failing = false;
          logger.info('rate limits: the shared store answers again; counting across instances');
        }
        return result as never;
      } catch (error) {
        failing = true;
        if (Date.now() - lastWarning >= WARN_EVERY_MS) {
          lastWarning = Date.now();
          logger.warn(
            { err: error },
            'rate limits: the shared store cannot be reached; this instance counts alone',
          );
        }
        throw error;
      }
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
