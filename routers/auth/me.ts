import { z } from 'zod';
import { toCurrentUser } from '../../domain/auth/current-user.ts';
import { authedProcedure } from '../trpc.ts';
import { currentUserOutput } from './auth.schema.ts';

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
  .query(({ ctx }) => toCurrentUser(ctx.auth));
