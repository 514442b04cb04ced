/**
 * What every procedure's input shares: the bounds every raw input is held to (checked before it is
 * parsed, rest/admission.ts), and the schema pieces procedures build from.
 */
import { z } from 'zod';

/**
 * A required field left out is said so ("is required"), not as zod's "expected string, received
 * undefined". Set here, once for the process: every transport's input passes the procedures'
 * schemas, and all of them import this module.
 */
export const REQUIRED = 'is required';
z.config({
  customError: (issue) => (issue.code === 'invalid_type' && issue.input === undefined ? REQUIRED : undefined),
});

/** `{success: true}`, the answer of deletes and of operations with nothing else to say. */
export const successOutput = z.object({ success: z.literal(true) }).meta({ id: 'Success' });

/**
 * The input of a procedure that takes none. Optional, so that a tRPC client calls it without an
 * argument (`client.auth.getCurrentUser.query()`); `{}` still works (REST passes its empty query or
 * body as `{}`), and the OpenAPI operation has no parameter and no required body.
 */
export const noInput = z.object({}).optional();

/** A string PostgreSQL can store (see `domain/text.ts`). */
export { emailText, text, urlText } from '../domain/text.ts';

/** The instants a timestamp input may name: none earlier is meaningful here, none later fits ISO 8601's 4-digit year. */
export const EARLIEST_TIMESTAMP = '1970-01-01T00:00:00.000Z';
export const LATEST_TIMESTAMP = '9999-12-31T23:59:59.999Z';

/**
 * An ISO 8601 date-time with an offset, between EARLIEST_TIMESTAMP and LATEST_TIMESTAMP
 * (year 0000 is valid ISO 8601 but not a PostgreSQL timestamptz, and would be a 500).
 */
export function timestamp() {
  const earliest = Date.parse(EARLIEST_TIMESTAMP);
  const latest = Date.parse(LATEST_TIMESTAMP);
  return z.iso.datetime({ offset: true }).refine((value) => {
    const instant = Date.parse(value);
    return instant >= earliest && instant <= latest;
  }, `must be between ${EARLIEST_TIMESTAMP} and ${LATEST_TIMESTAMP}`);
}

/** What a PostgreSQL `integer` column holds. */
export const PG_INTEGER_MIN = -2_147_483_648;
export const PG_INTEGER_MAX = 2_147_483_647;

/**
 * Every integer input: bounded by the column that stores it (api.md: no number may reach the
 * database past what its column holds; 2^31 into an `integer` was PostgreSQL's error, a 500).
 * `integer` (the default): ±2^31; `bigint`: JavaScript's safe integers (±2^53−1), all of which a
 * `bigint` holds and none past which JSON reads exactly. Narrow it further with `.min`/`.max`
 * (the tighter bound is the one checked and documented). The OpenAPI document shows the bounds.
 */
export function integer(column: 'integer' | 'bigint' = 'integer') {
  return column === 'bigint'
    ? z.int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER)
    : z.int().min(PG_INTEGER_MIN).max(PG_INTEGER_MAX);
}

/** `limit` 1–100 (default 50) and `offset` (default 0); the REST facade reads them from the query string as numbers. */
export const paginationInput = {
  limit: integer().min(1).max(100).default(50),
  offset: integer().min(0).max(10_000_000).default(0),
};

export const paginationOutput = z
  .object({ total: z.int(), limit: z.int(), offset: z.int() })
  .meta({ id: 'Pagination' });

/**
 * An array of up to `max` items: the same schema and document as `z.array(item).max(max)`, but
 * a list with bad items is refused after the first MAX_ISSUES of them, each with its issue. zod
 * reports every bad item, and the error's message prints them all: 10,000 bad ids held the
 * event loop ~100 ms. Use it for any array that may be longer than MAX_ISSUES.
 */
export function longList<T extends z.ZodType>(item: T, max: number) {
  return z.preprocess((value, ctx) => {
    if (!Array.isArray(value) || value.length > max) return value;
    let bad = 0;
    for (let index = 0; index < value.length && bad < MAX_ISSUES; index += 1) {
      const parsed = item.safeParse(value[index]);
      if (parsed.success) continue;
      bad += 1;
      ctx.addIssue({
        code: 'custom',
        path: [index],
        message: parsed.error.issues[0]!.message,
        input: value[index],
      });
    }
    // Any issue here ends the parse: the array schema below never sees a list with bad items.
    return value;
  }, z.array(item).max(max));
}

/**
 * The cost bound of every input that comes over HTTP (api.md: no request may hold the event loop),
 * checked on its text before it is parsed, once, by `checkJsonCost` (rest/admission.ts) on both
 * transports; query strings, path parameters and uploads are bounded where they are read. The
 * largest real inputs: 10,000 slide ids in a reorder, 64 kB of requirements JSON.
 */
/** Deepest nesting of objects and arrays any input may have (the input object itself is level 1). */
export const MAX_INPUT_DEPTH = 32;
/** Most members one object may have, and the longest name a member may have: a strict schema's
 * error lists every unknown name, and the error's text grows with them. */
export const MAX_OBJECT_MEMBERS = 500;
export const MAX_NAME_LENGTH = 100;
/** Most values (objects, arrays, members' and elements' values) one input may hold. */
export const MAX_INPUT_NODES = 20_000;

/** Enough to show what is wrong without letting a hostile input make a huge answer. */
export const MAX_ISSUES = 20;
