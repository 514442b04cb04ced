import { z } from 'zod';
import * as auth from '../../domain/auth/auth.ts';
import { currentUserOutput } from '../../domain/auth/auth-output.ts';
import { authedProcedure } from '../trpc.ts';

export const getCurrentUser = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/auth/me',
      tags: ['auth'],
      summary: 'The signed-in user and organization',
    },
  })
  .input(z.object({}))
  .output(currentUserOutput)
  .query(({ ctx }) => auth.getCurrentUser(ctx));
