import { initTRPC, TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { concurrentChangeError } from './concurrent-change.ts';
import type { Auth, Context } from './context.ts';
import { badRequest } from './errors.ts';
import { inputIssues } from './input-guard.ts';
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

/**
 * Every procedure's raw input, from any transport, before its schema sees it: text the
 * database cannot store, non-finite numbers and runaway nesting are a 400 with an issue on
 * each offending field (`routers/input-guard.ts`), so no field can forget the check.
 */
const storableInput = t.middleware(async ({ getRawInput, next }) => {
  const issues = inputIssues(await getRawInput());
  if (issues.length > 0) throw badRequest('The request is not valid: see issues', issues);
  return next();
});

/** Every procedure: a database error caused by a concurrent change answers 409/404, not 500. */
const concurrentChange = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.code === 'INTERNAL_SERVER_ERROR') {
    const mapped = concurrentChangeError(result.error.cause);
    if (mapped) throw mapped;
  }
  return result;
});

export const publicProcedure = t.procedure.use(concurrentChange).use(storableInput);

export const SIGN_IN_FIRST = 'Sign in first: this route needs a valid session cookie';

/** Needs a signed-in user; narrows `ctx.auth` for everything after it. Who is asking is checked before what is asked. */
export const authedProcedure = t.procedure
  .use(concurrentChange)
  .use(({ ctx, next }) => {
    if (!ctx.auth) {
      throw new TRPCError({
        code: 'UNAUTHORIZED',
        message: SIGN_IN_FIRST,
      });
    }
    return next({ ctx: { ...ctx, auth: ctx.auth as Auth } });
  })
  .use(storableInput);

/** Only for operators' in-process calls; over HTTP it does not exist. */
export const operatorProcedure = t.procedure
  .use(concurrentChange)
  .use(({ ctx, next }) => {
    if (!ctx.operator) throw new TRPCError({ code: 'NOT_FOUND', message: 'No such procedure' });
    return next();
  })
  .use(storableInput);
