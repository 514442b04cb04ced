import { z } from 'zod';
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
        'Checks the e-mail and password and starts a session: the answer sets the `session` cookie that authenticates every other route. A wrong e-mail and a wrong password get the same 401; repeated failures from one address are throttled (429 with `Retry-After`). Event `user.logged_in`. ' +
        'Takes no `Idempotency-Key`: a key sent here is ignored (never kept, never replayed), because a replay would have to store and send again a live session secret; a retry is safe without one (it only makes another session, and the unused one expires). Over /trpc, as on every mutation there, a key is a 400.',
      protect: false,
      errorResponses: [401, 429],
      responseHeaders: z.object({
        'Set-Cookie': z.string().meta({
          description: 'The `session` cookie (HttpOnly, SameSite=Lax; Secure over https): a new session',
          example: 'session=3q2-7w…; path=/; max-age=604800; samesite=lax; httponly',
        }),
      }),
    },
  })
  .input(logInInput)
  .output(currentUserOutput)
  .mutation(({ ctx, input }) => auth.logIn(ctx, input));
