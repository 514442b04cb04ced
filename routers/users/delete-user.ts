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
      errorResponses: [409],
    },
  })
  .input(userIdInput)
  .output(successOutput)
  .mutation(({ ctx, input }) => users.deleteUser(ctx, input.userId));
