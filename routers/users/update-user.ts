import { z } from 'zod';
import { organizationUserOutput } from '../../domain/users/user-output.ts';
import * as users from '../../domain/users/users.ts';
import { authedProcedure } from '../trpc.ts';
import { userName, userRole } from './user.schema.ts';

export const updateUserInput = z.strictObject({
  userId: z.uuid(),
  role: userRole.optional(),
  name: userName.optional(),
});

export const updateUser = authedProcedure
  .meta({
    access: 'owner',
    openapi: {
      method: 'PATCH',
      path: '/users/{userId}',
      tags: ['users'],
      summary: 'Change a user’s role or name (the last owner stays one: 409)',
      description:
        "Changes a user's `role`, `name` or both; a role change applies from their next request. The last owner cannot stop being one (409). Owner only; event `user.updated`.",
      errorResponses: [409],
    },
  })
  .input(updateUserInput)
  .output(organizationUserOutput)
  .mutation(({ ctx, input }) => users.updateUser(ctx, input));
