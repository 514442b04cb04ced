import { organizationUserOutput } from '../../domain/users/user-output.ts';
import * as users from '../../domain/users/users.ts';
import { authedProcedure } from '../trpc.ts';
import { userIdInput } from './user.schema.ts';

export const getUser = authedProcedure
  .meta({
    access: 'admin',
    openapi: {
      method: 'GET',
      path: '/users/{userId}',
      tags: ['users'],
      summary: 'Get a user of the organization',
      description: 'One user of the organization with their role. Admin access.',
    },
  })
  .input(userIdInput)
  .output(organizationUserOutput)
  .query(({ ctx, input }) => users.getUser(ctx, input.userId));
