import multer from '@koa/multer';
import Router from '@koa/router';
import type { Context as KoaContext, Middleware } from 'koa';
import { refusalOf } from '../domain/auth/access.ts';
import { byteSize } from '../domain/byte-size.ts';
import type { Auth } from '../domain/context.ts';
import {
  badRequest,
  INVALID_INPUT,
  type Issue,
  payloadTooLarge,
  unsupportedMediaType,
} from '../domain/errors.ts';
import { InMemoryFile } from '../domain/uploaded-file.ts';
import { createCaller } from '../routers/app-router.ts';
import { MAX_ISSUES } from '../routers/shared.schema.ts';
import { inputIssues } from '../routers/trpc.ts';
import {
  admitCalls,
  bodyLimits,
  type ContextFactory,
  type Query,
  readJsonObjectBody,
  readQuery,
  requestContext,
} from './admission.ts';
import type { RequestContext as Context, Edge } from './edge.ts';
import { streamRoute } from './event-stream.ts';
import { checkedIdempotencyKey, runIdempotently } from './idempotency.ts';
import type { HandWrittenRoute, ProcedureRoute, RestRoute, StreamRoute, TextForm } from './route.ts';
import { UploadIntake } from './upload-budget.ts';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
/** Room for the multipart framing and the few small fields around the file. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

export interface DispatchOptions {
  edge: Edge;
  createContext: ContextFactory;
}

/**
 * The /api routes, one per entry of the route table, matched once by Koa's router. Each
 * reads its input (JSON body or query string plus path parameters; or one multipart file),
 * builds the request's context and calls its procedure through tRPC's caller, answering
 * with the status the procedure's meta names. A hand-written route gets the checked session
 * and parameters instead. Nothing here answers an error: whatever is thrown leaves through
 * `problemFromError` (rest/middleware.ts). A known path with another method is a 405.
 */
export function createApiRouter(routes: readonly RestRoute[], options: DispatchOptions): Router {
  // Case-sensitive, as the session cookie and the counting of unknown routes read the path: `/API/…` is a 404.
  const router = new Router({ prefix: '/api', sensitive: true });
  for (const route of routes) {
    const handler =
      route.kind === 'hand-written'
        ? handWrittenRoute(route, options)
        : route.kind === 'stream'
          ? streamRoute({
              contextOf: (ctx) => contextOf(ctx, options),
              input: (ctx) => queryInput(readQuery(ctx.querystring), route.forms, route.pathParameters),
              call: procedureCall(route),
            })
          : route.kind === 'multipart'
            ? multipartRoute(route, options)
            : jsonRoute(route, options);
    router.register(
      route.route.path.replace(/\{(\w+)\}/g, ':$1'),
      [route.route.method],
      [admit(route, options), handler],
    );
  }
  return router;
}

/**
 * Before a route reads anything, its admission (rest/admission.ts): the caller, the request
 * counted against the rate limits (RateLimit-* headers on every answer to a signed-in caller, a
 * 403 included; 429 past a limit), the route's declared access decided (401 without a caller, 403
 * without the access), so that nothing of a refused request is read; then a POST's
 * Idempotency-Key checked (400 when malformed).
 */
function admit(route: RestRoute, options: DispatchOptions): Middleware {
  const call = {
    access: route.access,
    heavy: (route.kind === 'json' || route.kind === 'multipart') && route.heavy,
  };
  // Sign-in has no caller to keep a key for (and its body is a password): the header is ignored.
  const takesKey = route.route.method === 'POST' && route.route.protect !== false;
  const template = `/api${route.route.path}`;
  return async (ctx, next) => {
    ctx.state.route = template;
    const context = await contextOf(ctx, options);
    const decisions = await admitCalls(ctx, context, [call]);
    if (decisions[0]) throw await refusalOf(decisions[0], context, async () => ctx.params);
    // The route's procedure takes the decision (a hand-written route calls none).
    if (route.kind !== 'hand-written') context.admitted = decisions;
    const key = ctx.req.headers['idempotency-key'];
    if (takesKey && key !== undefined) ctx.state.idempotencyKey = checkedIdempotencyKey(key);
    await next();
  };
}

/** The request's context, made once (by `admit`) and shared by the route. */
function contextOf(ctx: KoaContext, options: DispatchOptions): Promise<Context> {
  return requestContext(ctx, options.createContext);
}

/**
 * An /api request no route took: 404, or 405 (501 for a method nobody serves) with `Allow`; the
 * problem-details middleware writes the body. It is counted like any other, so that the
 * answer to a signed-in caller carries the RateLimit-* headers too (api.md), and is a 429
 * past the caller's limit.
 */
export function allowedMethods(router: Router, options: DispatchOptions): Middleware {
  const allowed = router.allowedMethods() as Middleware;
  return (ctx, next) =>
    allowed(ctx, async () => {
      if (ctx.path !== '/api' && !ctx.path.startsWith('/api/')) return next();
      // No call: counted as one request, nothing decided.
      await admitCalls(ctx, await contextOf(ctx, options), []);
      await next();
    });
}

/** A callable node of tRPC's caller: a procedure, or a router whose members are reached by name. */
type CallerNode = ((input: unknown) => Promise<unknown>) & { [name: string]: CallerNode };

/**
 * How a route calls its procedure: through tRPC's public caller (one per request context),
 * reached by its path; a failure is thrown as its tRPC error.
 */
export type ProcedureCall = (context: Context, input: unknown, signal?: AbortSignal) => Promise<unknown>;

function procedureCall(route: ProcedureRoute | StreamRoute): ProcedureCall {
  const names = route.procedurePath.split('.');
  return (context, input, signal) => {
    let node = createCaller(context, { signal }) as unknown as CallerNode;
    for (const name of names) node = node[name]!;
    return node(input);
  };
}

/**
 * A JSON route: the input is the body (one JSON object) or the query string, plus the path
 * parameters. Only path and query text is converted to what the schema wants (`fromText`); the
 * schema itself is never touched, so every transport validates alike.
 */
function jsonRoute(route: ProcedureRoute, options: DispatchOptions): Middleware {
  const { shape, strict, pathParameters, forms } = route;
  const callProcedure = procedureCall(route);
  const usesBody = BODY_METHODS.has(route.route.method);
  const publicCall = route.access === 'public';
  return async (ctx) => {
    const context = await contextOf(ctx, options);
    // A route with a body takes no query parameter: any is unknown (before the body is read).
    if (usesBody) queryInput(readQuery(ctx.querystring), {}, pathParameters);
    const input = usesBody
      ? await readJsonObjectBody(ctx, bodyLimits(context.edge, context.auth, publicCall))
      : queryInput(readQuery(ctx.querystring), forms, pathParameters);
    // The body as parsed: a retry may differ from the first request in whitespace only.
    const bodyParts = () => [JSON.stringify(input)];
    await withIdempotencyKey(ctx, context, route, bodyParts, async () => {
      if (usesBody) {
        // A body has known fields only, even where the schema would quietly drop others
        // (`{}` inputs); path parameters are not body fields in the document.
        const unknown = Object.keys(input).filter(
          (name) => pathParameters.includes(name) || (!strict && !Object.hasOwn(shape, name)),
        );
        if (unknown.length > 0) {
          throw badRequest(
            INVALID_INPUT,
            unknown.map((name) => ({
              path: [name],
              message: pathParameters.includes(name)
                ? 'Unknown field (it is a path parameter)'
                : 'Unknown field',
            })),
          );
        }
      }
      for (const name of pathParameters) input[name] = fromText(ctx.params[name]!, forms[name]!);
      ctx.body = await callProcedure(context, input);
      ctx.status = route.successStatus;
      setLocation(ctx, route);
    });
  };
}

/**
 * A multipart upload route (images, contract import): @koa/multer reads the one part `file`,
 * stopping at the route's size limit while the bytes stream in (413), and the procedure gets
 * the file as a `File` over the bytes read (not a copy of them).
 *
 * Memory: the request's bytes are charged to the service's upload budget as they arrive
 * (`UploadIntake`), within its organization's and its caller's shares, and held until its
 * answer is ready. Past a share the answer is 429, past the budget 503 (both with
 * `Retry-After`); a body from which nothing arrives for `UPLOAD_IDLE_TIMEOUT_MS` is a 408;
 * a body longer than the file limit and its framing is a 413, up front when its declared length
 * says so, else as soon as that much has arrived (an epilogue is not read to its end).
 * Each of them closes the connection and gives the bytes back at once.
 */
function multipartRoute(route: ProcedureRoute, options: DispatchOptions): Middleware {
  const limit = options.edge.settings.uploads[route.multipartLimit!];
  const idleTimeoutMs = options.edge.settings.uploads.idleTimeoutMs;
  const upload = multer({
    storage: multer.memoryStorage(),
    // File names are UTF-8 (browsers send them so); busboy's default reads them as latin1.
    // (multer 2 passes this to busboy; its type definitions do not list it yet.)
    defParamCharset: 'utf8',
    limits: { fileSize: limit, files: 1, fields: 20, parts: 25, fieldSize: 1024, fieldNameSize: 100 },
  } as multer.Options).single('file');
  const largestBody = limit + MULTIPART_OVERHEAD_BYTES;
  const callProcedure = procedureCall(route);

  return async (ctx) => {
    // `admit` has refused an anonymous upload, or one whose caller may not write (a read-only
    // API key), before a byte of it is read.
    const context = await signedIn(ctx, options);
    queryInput(readQuery(ctx.querystring), {}, route.pathParameters);
    if (!ctx.is('multipart/form-data')) {
      throw unsupportedMediaType('Send the file as multipart/form-data, in a part named file');
    }
    const { organizationId, actor } = context.auth;
    const account = context.edge.uploadBudget.open({ organizationId, callerId: actor.id });
    try {
      let intake: UploadIntake;
      try {
        intake = new UploadIntake(ctx.req, account, {
          largestBody,
          largestBodyText: `a ${byteSize(limit)} file and its multipart framing`,
          idleTimeoutMs,
        });
      } catch (refusal) {
        // Not a byte of the body was read: close rather than drain it.
        ctx.set('Connection', 'close');
        throw refusal;
      }
      try {
        const reading = upload(ctx, async () => {});
        // Settles after a cut-off too (when the connection closes); the cut-off answers then.
        reading.catch(() => {});
        await Promise.race([reading, intake.cutOff]);
      } catch (error) {
        if (error === intake.refusal) {
          // The rest of the body is not wanted: answer and close the connection.
          ctx.set('Connection', 'close');
          throw error;
        }
        const code = (error as { code?: string }).code;
        if (code === 'LIMIT_FILE_SIZE') {
          // Stop reading the rest of an oversized upload: answer and close the connection.
          ctx.set('Connection', 'close');
          throw payloadTooLarge(`The file is larger than ${byteSize(limit)}`);
        }
        const detail =
          code === 'LIMIT_UNEXPECTED_FILE'
            ? 'Send exactly one file, in a part named file'
            : 'The multipart body could not be read';
        throw badRequest(detail, [{ path: ['file'], message: detail }]);
      } finally {
        intake.stop();
      }
      const part = (ctx as KoaContext & { file?: { buffer: Buffer; originalname: string; mimetype: string } })
        .file;
      const file = part
        ? new InMemoryFile(part.buffer, part.originalname, { type: part.mimetype })
        : undefined;
      // The file itself, not the multipart framing: a retry's form has a new boundary.
      const bodyParts = () => (part ? [part.originalname, part.mimetype, part.buffer] : ['no file']);
      await withIdempotencyKey(ctx, context, route, bodyParts, async () => {
        ctx.body = await callProcedure(context, { file });
        ctx.status = route.successStatus;
        setLocation(ctx, route);
      });
    } finally {
      account.release();
    }
  };
}

/** A create's answer names what it created (`Location`, kept for replays by rest/idempotency.ts). */
function setLocation(ctx: KoaContext, route: ProcedureRoute): void {
  if (!route.location) return;
  const answer = ctx.body as Record<string, unknown>;
  const path = route.location.replace(/\{([\w.]+)\}/g, (_match, field: string) => {
    const value = field
      .split('.')
      .reduce<unknown>((node, name) => (node as Record<string, unknown>)?.[name], answer);
    return encodeURIComponent(String(value));
  });
  ctx.set('Location', `/api${path}`);
}

/** A hand-written route: the session first, then its path parameters against their schemas. */
function handWrittenRoute(route: HandWrittenRoute, options: DispatchOptions): Middleware {
  return async (ctx) => {
    const context = await signedIn(ctx, options);
    queryInput(readQuery(ctx.querystring), {}, route.pathParameters);
    const parameters: Record<string, unknown> = {};
    // The same guard as every procedure's input (NUL, lone surrogates), then each schema.
    const raw = Object.fromEntries(route.pathParameters.map((name) => [name, ctx.params[name]!]));
    const issues = inputIssues(raw);
    if (issues.length > 0) throw badRequest(INVALID_INPUT, issues);
    for (const name of route.pathParameters) {
      const schema = route.parameters[name]!;
      const parsed = await (schema as import('zod').ZodType).safeParseAsync(
        fromText(ctx.params[name]!, route.forms[name]!),
      );
      if (parsed.success) parameters[name] = parsed.data;
      else issues.push(...parsed.error.issues.map((issue) => ({ path: [name], message: issue.message })));
    }
    if (issues.length > 0) throw badRequest(INVALID_INPUT, issues);
    await route.handle(ctx, context, parameters);
    ctx.status = route.successStatus;
  };
}

/** The context of a route whose access `admit` has checked: a signed-in caller's. */
async function signedIn(ctx: KoaContext, options: DispatchOptions): Promise<Context & { auth: Auth }> {
  return (await contextOf(ctx, options)) as Context & { auth: Auth };
}

/** Runs `run` under the request's Idempotency-Key, if it has one and a caller (rest/idempotency.ts). */
function withIdempotencyKey(
  ctx: KoaContext,
  context: Context,
  route: ProcedureRoute,
  bodyParts: () => (string | Uint8Array)[],
  run: () => Promise<void>,
): Promise<void> {
  const key: string | undefined = ctx.state.idempotencyKey;
  const { auth } = context;
  if (key === undefined || !auth) return run();
  return runIdempotently(
    ctx,
    { ...context, auth },
    { key, sessionBound: route.sessionBound },
    bodyParts,
    run,
  );
}

/**
 * The input a query string gives, checked like a body (api.md): a parameter the route does not
 * take (a path parameter's name included), or one given twice where one value is meant, is a
 * 400 with an issue on it; a value of the wrong form is refused by the schema after this.
 * `forms` empty: a route that takes no query parameter (a body's, an upload's).
 */
function queryInput(
  query: Query,
  forms: Record<string, TextForm>,
  skip: readonly string[],
): Record<string, unknown> {
  const issues: Issue[] = [];
  for (const name of Object.keys(query)) {
    if (issues.length >= MAX_ISSUES) break;
    if (skip.includes(name))
      issues.push({ path: [name], message: 'Unknown parameter (it is a path parameter)' });
    else if (!Object.hasOwn(forms, name)) issues.push({ path: [name], message: 'Unknown parameter' });
  }
  const input: Record<string, unknown> = {};
  for (const [name, form] of Object.entries(forms)) {
    const value = Object.hasOwn(query, name) ? query[name] : undefined;
    if (value === undefined || skip.includes(name)) continue;
    if (Array.isArray(value) && !form.list) {
      issues.push({ path: [name], message: 'must be given once' });
    } else input[name] = fromText(value, form);
  }
  if (issues.length > 0) throw badRequest(INVALID_INPUT, issues.slice(0, MAX_ISSUES));
  return input;
}

/** Plain decimal notation only: `0x10`, ` 3`, `Infinity` and the empty string stay strings (and are refused). */
const DECIMAL = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * A path or query value (always text) as its form says (`TextForm`): numbers and booleans, a
 * list (a single value becomes a one-element list). Text that does not parse stays text, so the
 * schema refuses it with an issue on the field; a repeated value where one is expected stays a
 * list, which the schema refuses.
 */
function fromText(value: string | string[], form: TextForm): unknown {
  if (form.list) return (Array.isArray(value) ? value : [value]).map((item) => valueFromText(item, form));
  return Array.isArray(value) ? value : valueFromText(value, form);
}

function valueFromText(value: string, form: TextForm): unknown {
  if (form.value === 'number') {
    const number = Number(value);
    return DECIMAL.test(value) && Number.isFinite(number) ? number : value;
  }
  if (form.value === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  return value;
}
