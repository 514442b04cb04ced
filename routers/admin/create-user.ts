import { z } from 'zod';
import * as users from '../../domain/users/users.ts';
import { USER_ROLES } from '../../entities/User.ts';
import { emailAddress, password } from '../auth/auth.schema.ts';
import { text } from '../shared.schema.ts';
import { publicProcedure } from '../trpc.ts';

export const createUserInput = z.strictObject({
  organization: text().trim().min(1).max(200),
  email: emailAddress,
  password,
  name: text().trim().min(1).max(200).optional(),
  role: z.enum(USER_ROLES).optional(),
});

export const createUserOutput = z.object({ organizationId: z.uuid(), userId: z.uuid() });

/** Operators only (admin CLI, demo seed); over HTTP it does not exist. */
export const createUser = publicProcedure
  .meta({ access: 'operator' })
  .input(createUserInput)
  .output(createUserOutput)
  .mutation(({ ctx, input }) => users.createUser(ctx, input));
