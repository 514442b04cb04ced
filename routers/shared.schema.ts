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
