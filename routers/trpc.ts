import { initTRPC, TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { concurrentChangeError } from './concurrent-change.ts';
import type { Auth, Context } from './context.ts';
import { issuesOf } from './issues.ts';

/**
 * Procedure metadata: the REST route (trpc-to-openapi) plus the success status the REST
 * facade answers with and the OpenAPI document states (201 for creates, 202 for jobs).
 * `multipartLimit` marks a multipart upload route (input `{file}`) and names the setting
 * of `config.uploads` that caps its file.
 */
export type Meta = OpenApiMeta<{
  successStatus?: 200 | 201 | 202;
  multipartLimit?: 'imageMaxBytes' | 'contractMaxBytes';
}>;

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // tRPC clients get tRPC's own error shape, with field issues added and no stack trace.
    errorFormatter({ shape, error }) {
      const { stack: _stack, ...data } = shape.data;
      return { ...shape, data: { ...data, issues: issuesOf(error) } };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Every procedure: a database error caused by a concurrent change answers 409/404, not 500. */
export const publicProcedure = t.procedure.use(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.code === 'INTERNAL_SERVER_ERROR') {
    const mapped = concurrentChangeError(result.error.cause);
    if (mapped) throw mapped;
  }
  return result;
});

export const SIGN_IN_FIRST = 'Sign in first: this route needs a valid session cookie';

/** Needs a signed-in user; narrows `ctx.auth` for everything after it. */
export const authedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.auth) {
    throw new TRPCError({
      code: 'UNAUTHORIZED',
      message: SIGN_IN_FIRST,
    });
  }
  return next({ ctx: { ...ctx, auth: ctx.auth as Auth } });
});

/** Only for operators' in-process calls; over HTTP it does not exist. */
export const operatorProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.operator) throw new TRPCError({ code: 'NOT_FOUND', message: 'No such procedure' });
  return next();
});
