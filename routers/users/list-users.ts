import { z } from 'zod';
import { organizationUserOutput } from '../../domain/users/user-output.ts';
import * as users from '../../domain/users/users.ts';
import { noInput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const listUsers = authedProcedure
  .meta({
    access: 'admin',
    openapi: {
      method: 'GET',
      path: '/users',
      tags: ['users'],
      summary: 'The organization’s users',
      description: 'Every user of the organization with their role. Admin access.',
    },
  })
  .input(noInput)
  .output(z.object({ users: z.array(organizationUserOutput) }))
  .query(({ ctx }) => users.listUsers(ctx));
