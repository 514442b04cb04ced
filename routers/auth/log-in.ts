import * as auth from '../../domain/auth/auth.ts';
import { currentUserOutput } from '../../domain/auth/auth-output.ts';
import { publicProcedure } from '../trpc.ts';
import { logInInput } from './auth.schema.ts';

export const logIn = publicProcedure
  .meta({
    access: 'public',
    openapi: {
      method: 'POST',
      path: '/auth/login',
      tags: ['auth'],
      summary: 'Sign in; sets the `session` cookie',
      protect: false,
      errorResponses: [401, 429],
    },
  })
  .input(logInInput)
  .output(currentUserOutput)
  .mutation(({ ctx, input }) => auth.logIn(ctx, input));
