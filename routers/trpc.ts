import { initTRPC, type TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { type Access, missingAccess } from '../domain/auth/access.ts';
import type { Auth } from '../domain/context.ts';
import { badRequest, missing, unauthorized } from '../domain/errors.ts';
import type { Context } from './context.ts';
import { toTrpcError, trpcErrorFrom } from './errors.ts';
import { inputIssues } from './input-guard.ts';
import { issuesOf } from './issues.ts';

/**
 * Procedure metadata: the REST route (trpc-to-openapi) plus the success status the REST
 * facade answers with and the OpenAPI document states (201 for creates, 202 for jobs).
 * `multipartLimit` marks a multipart upload route (input `{file}`) and names the setting
 * of `config.uploads` that caps its file. `heavy` marks an expensive operation, counted against
 * the organization's HEAVY_LIMIT_PER_MINUTE as well as the caller's limit.
 */
export type Meta = OpenApiMeta<{
  successStatus?: 200 | 201 | 202;
  multipartLimit?: 'imageMaxBytes' | 'contractMaxBytes';
  heavy?: boolean;
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

export const SIGN_IN_FIRST = 'Sign in first: this route needs a valid session cookie or API key';

/**
 * Every procedure's raw input, from any transport, before its schema sees it: text the
 * database cannot store, non-finite numbers and runaway nesting are a 400 with an issue on
 * each offending field (`routers/input-guard.ts`), so no field can forget the check.
 */
async function checkStorableInput(getRawInput: () => Promise<unknown>): Promise<void> {
  const issues = inputIssues(await getRawInput());
  if (issues.length > 0) throw trpcErrorFrom(badRequest('The request is not valid: see issues', issues));
}

/**
 * After the procedure: a domain error (and a database error caused by a concurrent change,
 * 409/404) leaves as the tRPC error of its kind; anything else stays a 500.
 */
function domainErrors<R extends { ok: boolean }>(result: R): R {
  if (!result.ok) throw toTrpcError((result as unknown as { error: TRPCError }).error);
  return result;
}

// One middleware per kind of procedure, not three: each level of tRPC's chain copies the
// call's options and context again, on every call.

export const publicProcedure = t.procedure.use(async ({ getRawInput, next }) => {
  await checkStorableInput(getRawInput);
  return domainErrors(await next());
});

/**
 * Needs a signed-in caller (user or API key); narrows `ctx.auth` for everything after it. Who
 * is asking is checked before what is asked. A mutation needs write access (api.md: `read`
 * is every GET), so a read-only API key changes nothing.
 */
export const authedProcedure = t.procedure.use(async ({ ctx, type, getRawInput, next }) => {
  if (!ctx.auth) throw trpcErrorFrom(unauthorized(SIGN_IN_FIRST));
  const denied = type === 'mutation' ? missingAccess(ctx.auth, 'write') : null;
  if (denied) throw trpcErrorFrom(denied);
  await checkStorableInput(getRawInput);
  return domainErrors(await next({ ctx: { auth: ctx.auth as Auth } }));
});

/** Needs a signed-in caller whose access covers `needed`: 403 otherwise, before the input is read. */
function accessProcedure(needed: Access) {
  return t.procedure.use(async ({ ctx, getRawInput, next }) => {
    if (!ctx.auth) throw trpcErrorFrom(unauthorized(SIGN_IN_FIRST));
    const denied = missingAccess(ctx.auth, needed);
    if (denied) throw trpcErrorFrom(denied);
    await checkStorableInput(getRawInput);
    return domainErrors(await next({ ctx: { auth: ctx.auth as Auth } }));
  });
}

/** Admin access (role admin or owner, or an admin API key). */
export const adminProcedure = accessProcedure('admin');

/** Owner access (role owner only: no API key has it). */
export const ownerProcedure = accessProcedure('owner');

/** Only for operators' in-process calls; over HTTP it does not exist. */
export const operatorProcedure = t.procedure.use(async ({ ctx, getRawInput, next }) => {
  if (!ctx.operator) throw trpcErrorFrom(missing('No such procedure'));
  await checkStorableInput(getRawInput);
  return domainErrors(await next());
});
