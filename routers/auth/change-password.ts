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
      errorResponses: [429],
    },
  })
  .input(changePasswordInput)
  .output(successOutput)
  .mutation(({ ctx, input }) => auth.changePassword(ctx, input));
