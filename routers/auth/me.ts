import { z } from 'zod';
import { authedProcedure } from '../trpc.ts';
import { currentUserOutput } from './auth.schema.ts';
import { currentUser } from './current-user.ts';

export const me = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/auth/me',
      tags: ['auth'],
      summary: 'The signed-in user and organization',
    },
  })
  .input(z.object({}))
  .output(currentUserOutput)
  .query(({ ctx }) => currentUser(ctx.em, ctx.auth.userId));
