import { z } from 'zod';
import * as users from '../../domain/users/users.ts';
import { emailAddress, password } from '../auth/auth.schema.ts';
import { publicProcedure } from '../trpc.ts';

/** Operators only (admin CLI): a user's new password, found by e-mail; every session of theirs ends. */
export const setPassword = publicProcedure
  .meta({ access: 'operator' })
  .input(z.strictObject({ email: emailAddress, password }))
  .output(z.object({ userId: z.uuid() }))
  .mutation(({ ctx, input }) => users.setPassword(ctx, input));
