import { z } from 'zod';
import { toCurrentUser } from '../../domain/auth/current-user.ts';
import { findAuth } from '../../domain/auth/find-auth.ts';
import { tooManyRequests, unauthorized, unavailable } from '../../domain/errors.ts';
import { recordEvent } from '../../domain/events/record-event.ts';
import { User } from '../../entities/User.ts';
import { DECOY_PASSWORD_HASH, PasswordChecksBusy, verifyPassword } from '../../server/passwords.ts';
import { text } from '../shared.schema.ts';
import { publicProcedure } from '../trpc.ts';
import { currentUserOutput, emailAddress } from './auth.schema.ts';
import { countLoginAttempt, forgiveLoginAttempt } from './login-throttle.ts';

export const loginInput = z.strictObject({
  email: emailAddress,
  password: text().min(1).max(1024),
});

export const login = publicProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/auth/login',
      tags: ['auth'],
      summary: 'Sign in; sets the `session` cookie',
      protect: false,
      errorResponses: [401, 429],
    },
  })
  .input(loginInput)
  .output(currentUserOutput)
  .mutation(async ({ ctx, input }) => {
    const limits = ctx.services.config.loginThrottle;
    // Counted before the password is checked, atomically: concurrent attempts cannot all slip
    // under the limit, and an attempt past it costs no password hash.
    const wait = await countLoginAttempt(ctx.em, input.email, ctx.clientAddress, limits);
    if (wait > 0) throw tooManyRequests(`Too many failed sign-ins; try again in ${wait} s`, wait);

    const user = await ctx.em.findOne(User, { email: input.email });
    // Verify against a decoy when the e-mail is unknown: both failures take the same time.
    let valid: boolean;
    try {
      valid = await verifyPassword(input.password, user?.passwordHash ?? DECOY_PASSWORD_HASH);
    } catch (error) {
      if (!(error instanceof PasswordChecksBusy)) throw error;
      throw unavailable('Too many sign-ins at once; try again in a moment', 1);
    }
    if (!user || !valid) throw unauthorized('Wrong e-mail or password');

    await forgiveLoginAttempt(ctx.em, input.email, ctx.clientAddress);
    const output = toCurrentUser((await findAuth(ctx.em, user.id))!);
    recordEvent(ctx.em, { organizationId: output.organization.id }, 'user.logged_in', {
      aggregateId: user.id,
      payload: { user: output.user },
    });
    await ctx.em.flush();
    await ctx.session.signIn(user.id);
    return output;
  });
