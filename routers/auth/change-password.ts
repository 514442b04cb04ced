import { z } from 'zod';
import * as auth from '../../domain/auth/auth.ts';
import { successOutput, text } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { password } from './auth.schema.ts';

export const changePasswordInput = z.strictObject({
  currentPassword: text().min(1).max(1024),
  newPassword: password,
});

export const changePassword = authedProcedure
  .meta({
    access: 'user',
    sessionBound: true,
    openapi: {
      method: 'POST',
      path: '/auth/password',
      tags: ['auth'],
      summary: 'Change your password; your other sessions end',
      description:
        'Checks `currentPassword` (a wrong one is a 400 and counts like a failed sign-in: 429 after too many), stores the new one, and ends every other session of the user; the session making the request stays. Signed-in users only (not API keys); event `user.password_changed`.',
      errorResponses: [429],
    },
  })
  .input(changePasswordInput)
  .output(successOutput)
  .mutation(({ ctx, input }) => auth.changePassword(ctx, input));
