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
      // docs/decisions/046-login-idempotency.md
      description:
        'Takes no `Idempotency-Key`: a key sent here is ignored (not refused, never kept, never ' +
        'replayed), because a replay would have to store and send again a live session secret. ' +
        'Each successful sign-in starts a new session, so a retry is safe without a key: it only ' +
        'makes another session (the unused one expires). Over /trpc, as every mutation there, a ' +
        'key is a 400.',
      protect: false,
      errorResponses: [401, 429],
    },
  })
  .input(logInInput)
  .output(currentUserOutput)
  .mutation(({ ctx, input }) => auth.logIn(ctx, input));
