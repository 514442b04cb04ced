import { TRPCError } from '@trpc/server';
import type { Context as KoaContext, Middleware } from 'koa';
import type { z } from 'zod';
import { appRouter, createCaller } from '../routers/app-router.ts';
import type { Context } from '../routers/context.ts';
import { BodyProblem, readJsonObjectBody } from './json-body.ts';
import { problem, problemFromTrpcError, sendProblem } from './problem.ts';
import type { RestProcedure } from './procedures.ts';
import { coerceParameter, queryInput } from './query-input.ts';

type Schema = z.core.$ZodType;

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** The input object of a procedure (every REST procedure's input is one `z.object`): its fields, and whether it refuses others. */
function inputOf(procedurePath: string): { shape: Record<string, Schema>; strict: boolean } {
  const procedure = (appRouter._def.procedures as unknown as Record<string, { _def: { inputs: Schema[] } }>)[
    procedurePath
  ]!;
  const [input, ...more] = procedure._def.inputs;
  const def = input?._zod.def as
    | { type: string; shape?: Record<string, Schema>; catchall?: Schema }
    | undefined;
  if (more.length > 0 || def?.type !== 'object' || !def.shape) {
    throw new Error(`REST procedure ${procedurePath} needs exactly one z.object input`);
  }
  return { shape: def.shape, strict: def.catchall?._zod.def.type === 'never' };
}

/**
 * A JSON REST route: Koa's router has matched it (path parameters in `ctx.params`); the input
 * is the body (one JSON object) or the query string, plus the path parameters, and the route
 * calls its procedure as any in-process caller would (`createCaller`). Only path and query
 * text is converted to what the schema wants (`query-input.ts`); the schema itself is never
 * touched, so every transport validates alike. Errors leave as problem details.
 */
export function createRestHandler(options: {
  createContext: (ctx: KoaContext) => Promise<Context>;
  jsonBodyLimitBytes: number;
}): (procedure: RestProcedure) => Middleware {
  return (procedure) => {
    const { shape, strict } = inputOf(procedure.path);
    const pathParameters = [...procedure.route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
    const usesBody = BODY_METHODS.has(procedure.route.method);

    return async (ctx) => {
      let input: Record<string, unknown>;
      try {
        input = usesBody
          ? await readJsonObjectBody(ctx, options.jsonBodyLimitBytes)
          : queryInput(ctx.query, shape, pathParameters);
      } catch (error) {
        if (!(error instanceof BodyProblem)) throw error;
        return sendProblem(ctx, problem(error.status, error.message, error.issues));
      }
      // A body has known fields only, even where the schema would quietly drop others
      // (`{}` inputs); path parameters are not body fields in the document.
      const unknown = usesBody
        ? Object.keys(input).filter(
            (name) => pathParameters.includes(name) || (!strict && !Object.hasOwn(shape, name)),
          )
        : [];
      if (unknown.length > 0) {
        return sendProblem(
          ctx,
          problem(
            400,
            'The request is not valid: see issues',
            unknown.map((name) => ({
              path: [name],
              message: pathParameters.includes(name)
                ? 'Unknown field (it is a path parameter)'
                : 'Unknown field',
            })),
          ),
        );
      }
      for (const name of pathParameters) input[name] = coerceParameter(ctx.params[name]!, shape[name]!);

      const context = await options.createContext(ctx);
      try {
        const caller = createCaller(context) as unknown as Record<string, any>;
        const call = procedure.path.split('.').reduce((target, name) => target[name], caller) as (
          input: unknown,
        ) => Promise<unknown>;
        const output = await call(input);
        ctx.status = procedure.successStatus;
        ctx.body = output;
      } catch (error) {
        if (!(error instanceof TRPCError)) throw error;
        const shaped = problemFromTrpcError(error);
        if (shaped.unexpected) ctx.state.logger?.error({ err: error.cause ?? error }, 'procedure failed');
        sendProblem(ctx, shaped.problem, shaped.retryAfterSeconds);
      }
    };
  };
}
