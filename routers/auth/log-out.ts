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
    },
  })
  .input(noInput)
  .output(successOutput)
  .mutation(({ ctx }) => auth.logOut(ctx));
