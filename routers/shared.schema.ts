import { z } from 'zod';

/** `{success: true}`, the answer of deletes and of operations with nothing else to say. */
export const successOutput = z.object({ success: z.literal(true) }).meta({ id: 'Success' });

/**
 * A string PostgreSQL can store: text columns (and jsonb) refuse the NUL character, which
 * would otherwise surface as a 500. Use it for every free-text input.
 */
export function text() {
  return z.string().refine((value) => !value.includes('\u0000'), 'must not contain the NUL character');
}

/** `limit` 1–100 (default 50) and `offset` (default 0), from the query string. */
export const paginationInput = {
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
};

export const paginationOutput = z
  .object({ total: z.int(), limit: z.int(), offset: z.int() })
  .meta({ id: 'Pagination' });
