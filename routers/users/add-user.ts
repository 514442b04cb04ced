import { z } from 'zod';
import { organizationUserOutput } from '../../domain/users/user-output.ts';
import * as users from '../../domain/users/users.ts';
import { authedProcedure } from '../trpc.ts';
import { emailAddress, password, userName, userRole } from './user.schema.ts';

export const addUserInput = z.strictObject({ email: emailAddress, name: userName, role: userRole, password });

export const addUser = authedProcedure
  .meta({
    access: 'owner',
    openapi: {
      method: 'POST',
      path: '/users',
      tags: ['users'],
      summary: 'Add a user to the organization (an e-mail in use anywhere: 409)',
      description:
        "Creates a member, admin or owner of the caller's organization with a first password. An e-mail already in use, in this organization or any other, is the same 409. Owner only; counts against the heavy limit; event `user.created`.",
      errorResponses: [409],
    },
    successStatus: 201,
    location: '/users/{id}',
    // A password hash each (and a 409 tells whether an e-mail is in use): counted per organization.
    heavy: true,
  })
  .input(addUserInput)
  .output(organizationUserOutput)
  .mutation(({ ctx, input }) => users.addUser(ctx, input));
