import { z } from 'zod';
import { organizationUserOutput } from '../../domain/users/user-output.ts';
import * as users from '../../domain/users/users.ts';
import { text } from '../shared.schema.ts';
import { publicProcedure } from '../trpc.ts';

/** Operators only (admin CLI): an organization's users, by its name. */
export const listOrganizationUsers = publicProcedure
  .meta({ access: 'operator' })
  .input(z.strictObject({ organization: text().trim().min(1).max(200) }))
  .output(z.object({ organizationId: z.uuid(), users: z.array(organizationUserOutput) }))
  .query(({ ctx, input }) => users.listOrganizationUsers(ctx, input));
