/**
 * What every procedure's input shares: the bounds and the storable-text guard every raw input passes
 * before its schema (any transport), and the schema pieces procedures build from.
 */
import { z } from 'zod';
import type { Issue } from '../domain/errors.ts';
import { unstorableTextProblem } from '../domain/text.ts';

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
 * checked on its text before it is parsed, once, by `checkJsonCost` (rest/request-input.ts) on both
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

interface Container {
  value: unknown[] | Record<string, unknown>;
  parent: Container | null;
  key: string | number;
}

function pathOf(container: Container | null, key?: string | number): (string | number)[] {
  // The input itself (no container around it) has the empty path.
  const path: (string | number)[] = container === null || key === undefined ? [] : [key];
  for (let c = container; c?.parent; c = c.parent) path.unshift(c.key);
  return path;
}

/**
 * Walks a procedure's raw input, whatever the transport brought it (REST, /trpc, an in-process
 * call), and lists what no schema should have to think about: strings and field names the
 * database cannot store, numbers that are not finite (JSON's 1e400 parses as Infinity) and a
 * field named `__proto__` (it cannot survive a round trip through a JavaScript object); at most
 * MAX_ISSUES of them. Its size and shape were bounded before it was parsed (`checkJsonCost`); the
 * walk is iterative all the same (no input can exhaust the stack), and allocates only per
 * container, so a 1 MB body is walked in a few milliseconds.
 */
export function inputIssues(input: unknown): Issue[] {
  const issues: Issue[] = [];
  const pending: Container[] = [];
  const visit = (value: unknown, parent: Container | null, key: string | number) => {
    if (typeof value === 'string') {
      const problem = unstorableTextProblem(value);
      if (problem) issues.push({ path: pathOf(parent, key), message: problem });
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value))
        issues.push({ path: pathOf(parent, key), message: 'must be a finite number' });
    } else if (value instanceof File) {
      const problem = unstorableTextProblem(value.name);
      if (problem) issues.push({ path: pathOf(parent, key), message: `file name ${problem}` });
    } else if (Array.isArray(value) || isPlainObject(value)) {
      pending.push({ value, parent, key });
    }
  };
  visit(input, null, '');
  while (pending.length > 0 && issues.length < MAX_ISSUES) {
    const container = pending.pop()!;
    const { value } = container;
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index += 1) visit(value[index], container, index);
      continue;
    }
    for (const key of Object.keys(value)) {
      const problem = key === '__proto__' ? 'this field name is not allowed' : unstorableTextProblem(key);
      if (problem) {
        const message = key === '__proto__' ? problem : `field name ${problem}`;
        issues.push({ path: pathOf(container, key), message });
      } else visit(value[key], container, key);
    }
  }
  return issues.slice(0, MAX_ISSUES);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
