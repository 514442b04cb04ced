import * as auth from '../../domain/auth/auth.ts';
import { currentCallerOutput } from '../../domain/auth/auth-output.ts';
import { noInput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const getCurrentUser = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/auth/me',
      tags: ['auth'],
      summary: 'The caller (signed-in user, or API key) and its organization',
      description:
        'Who is asking: a signed-in user (`user`, with role) or an API key (`user: null`, `apiKey` with its access), and their organization.',
    },
  })
  .input(noInput)
  .output(currentCallerOutput)
  .query(({ ctx }) => auth.getCurrentUser(ctx));
