import * as users from '../../domain/users/users.ts';
import { successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { userIdInput } from './user.schema.ts';

export const deleteUser = authedProcedure
  .meta({
    access: 'owner',
    openapi: {
      method: 'DELETE',
      path: '/users/{userId}',
      tags: ['users'],
      summary: 'Remove a user; their sessions end (not the last owner: 409)',
      description:
        "Removes the user and ends their sessions. The organization's last owner cannot be removed (409). Owner only; event `user.deleted`.",
      errorResponses: [409],
    },
  })
  .input(userIdInput)
  .output(successOutput)
  .mutation(({ ctx, input }) => users.deleteUser(ctx, input.userId));
