import { z } from 'zod';
import * as auth from '../../domain/auth/auth.ts';
import { noInput, successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const logOut = authedProcedure
  .meta({
    access: 'user',
    sessionBound: true,
    openapi: {
      method: 'POST',
      path: '/auth/logout',
      tags: ['auth'],
      summary: 'Sign out; the session is revoked on the server',
      description:
        'Revokes the session the request presents (its row is deleted, so a copy of the cookie stops working too) and clears the cookie. Takes no body. Signed-in users only.',
      responseHeaders: z.object({
        'Set-Cookie': z
          .string()
          .optional()
          .meta({ description: 'Clears the `session` cookie (an expiry in the past)' }),
      }),
    },
  })
  .input(noInput)
  .output(successOutput)
  .mutation(({ ctx }) => auth.logOut(ctx));
