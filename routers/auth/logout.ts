import { z } from 'zod';
import { successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const logout = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/auth/logout',
      tags: ['auth'],
      summary: 'Sign out; the session is revoked on the server',
    },
  })
  .input(z.object({}))
  .output(successOutput)
  .mutation(async ({ ctx }) => {
    await ctx.session.signOut();
    return { success: true as const };
  });
