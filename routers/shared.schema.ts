import { z } from 'zod';
import { MAX_ISSUES } from './input-guard.ts';

/** `{success: true}`, the answer of deletes and of operations with nothing else to say. */
export const successOutput = z.object({ success: z.literal(true) }).meta({ id: 'Success' });

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

/** `limit` 1–100 (default 50) and `offset` (default 0); the REST facade reads them from the query string as numbers. */
export const paginationInput = {
  limit: z.int().min(1).max(100).default(50),
  offset: z.int().min(0).max(10_000_000).default(0),
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
