import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Auth } from '../domain/context.ts';
import { badRequest, missing, unauthorized } from '../domain/errors.ts';
import type { Context } from './context.ts';
import { toTrpcError } from './errors.ts';
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

/**
 * Every procedure, outermost: a domain error (and a database error caused by a concurrent
 * change, 409/404) leaves as the tRPC error of its kind; anything else stays a 500.
 */
const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) throw toTrpcError(result.error);
  return result;
});

export const publicProcedure = t.procedure.use(domainErrors).use(storableInput);

export const SIGN_IN_FIRST = 'Sign in first: this route needs a valid session cookie';

/** Needs a signed-in user; narrows `ctx.auth` for everything after it. Who is asking is checked before what is asked. */
export const authedProcedure = t.procedure
  .use(domainErrors)
  .use(({ ctx, next }) => {
    if (!ctx.auth) {
      throw unauthorized(SIGN_IN_FIRST);
    }
    return next({ ctx: { ...ctx, auth: ctx.auth as Auth } });
  })
  .use(storableInput);

/** Only for operators' in-process calls; over HTTP it does not exist. */
export const operatorProcedure = t.procedure
  .use(domainErrors)
  .use(({ ctx, next }) => {
    if (!ctx.operator) throw missing('No such procedure');
    return next();
  })
  .use(storableInput);
