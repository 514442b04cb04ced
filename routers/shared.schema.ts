import { z } from 'zod';

/** `{success: true}`, the answer of deletes and of operations with nothing else to say. */
export const successOutput = z.object({ success: z.literal(true) }).meta({ id: 'Success' });

/** A string PostgreSQL can store (see `domain/text.ts`). */
export { text } from '../domain/text.ts';

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
