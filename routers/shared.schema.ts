import { z } from 'zod';

/** `{success: true}`, the answer of deletes and of operations with nothing else to say. */
export const successOutput = z.object({ success: z.literal(true) }).meta({ id: 'Success' });
