import type { Context as KoaContext } from 'koa';
import getRawBody from 'raw-body';
import { accessDenial, type ProcedureAccess } from '../domain/auth/access.ts';
import { byteSize } from '../domain/byte-size.ts';
import type { Auth } from '../domain/context.ts';
import { badRequest, type DomainError, payloadTooLarge, unsupportedMediaType } from '../domain/errors.ts';
import {
  MAX_INPUT_DEPTH,
  MAX_INPUT_NODES,
  MAX_NAME_LENGTH,
  MAX_OBJECT_MEMBERS,
} from '../routers/shared.schema.ts';
import type { Edge, RequestContext } from './edge.ts';
import { countRequest } from './rate-limit.ts';
import { type UploadBudget, UploadIntake } from './upload-budget.ts';

/**
 * The one door of /api (rest/dispatch.ts) and /trpc (rest/trpc-endpoint.ts): what a request to a
 * procedure passes before anything of it runs, the same on both transports. In this order:
 * 1. who asks: the request's context, made once (`requestContext`);
 * 2. may they, and how often: each call's access decided and the request counted against the
 *    rate limits (`admitCalls`); the decisions then go with the context to the procedures;
 * 3. how much they may send: the body's cap and whose upload budget it is charged to
 *    (`bodyLimits`, `readRawBody`), then its cost before it is parsed (`checkJsonCost`); a REST
 *    body read as one JSON object (`readJsonObjectBody`), a query string in one bounded pass
 *    (`readQuery`).
 * Each transport calls these at its own point (REST decides before it reads the body; /trpc reads
 * its body before tRPC names the calls) and answers their refusals in its own shape.
 */

/** Builds a request's context (rest/request-context.ts). */
export type ContextFactory = (ctx: KoaContext) => Promise<RequestContext>;

/** What admission reads of a procedure's meta. */
export interface Admissible {
  access: ProcedureAccess;
  /** Counted against the organization's heavy limit too. */
  heavy?: boolean;
}

/**
 * The request's context: the caller (session cookie or API key) and a fresh EntityManager, made
 * once per request, whichever part of the request asks first.
 */
export function requestContext(ctx: KoaContext, create: ContextFactory): Promise<RequestContext> {
  ctx.state.context ??= create(ctx);
  return ctx.state.context;
}

/**
 * Admits the calls a request makes (one on /api; one or a batch on /trpc; none for an /api path no
 * route takes, which is counted all the same): each call's access decided once (`accessDenial`:
 * null, or the 401/403 to answer), then a signed-in caller's request counted, each call as a
 * request and each allowed heavy call against the organization's heavy limit (a call the caller
 * may not make spends no heavy quota). Past a limit the 429 is thrown: nothing has run. Who asks
 * is known before how often: an anonymous request is not counted, and its 401 comes first.
 *
 * Answers the decisions, in the calls' order. The transport refuses with them (REST, before it
 * reads more) or hands them to the procedures as `Context.admitted`, where each procedure's
 * middleware takes its own (routers/trpc.ts). An unknown call (undefined) is tRPC's 404: allowed
 * here.
 */
export async function admitCalls(
  ctx: KoaContext,
  context: RequestContext,
  calls: readonly (Admissible | undefined)[],
): Promise<readonly (DomainError | null)[]> {
  const decisions = calls.map((call) => (call ? accessDenial(call.access, context) : null));
  if (context.auth) {
    const heavyCalls = calls.filter((call, index) => call?.heavy && decisions[index] === null).length;
    const refused = await countRequest(
      ctx,
      context.edge.rateLimiter,
      context.auth,
      Math.max(1, calls.length),
      heavyCalls,
    );
    if (refused) throw refused;
  }
  return decisions;
}

/**
 * The most a body may be that the service reads for a caller who is not signed in, or for a call
 * open to anybody (sign-in: an e-mail and a password). Anyone can send these, so they are kept far
 * below JSON_BODY_LIMIT_BYTES. (REST refuses an anonymous caller of any other route before it reads
 * a byte; /trpc reads the body before a procedure can refuse, so it caps it here.)
 */
export const PUBLIC_BODY_LIMIT_BYTES = 16 * 1024;

/**
 * How a JSON body is read: capped (PUBLIC_BODY_LIMIT_BYTES for `caller` null or a public call,
 * else JSON_BODY_LIMIT_BYTES), cut off when it stops arriving, and a signed-in caller's charged to
 * its organization's and its own shares of the upload memory budget while it is read (the time the
 * caller controls). An anonymous body is not charged: it is small.
 */
export function bodyLimits(edge: Edge, caller: Auth | null, publicCall: boolean): BodyLimits {
  const { jsonBodyLimitBytes, uploads } = edge.settings;
  return {
    limitBytes:
      caller === null || publicCall
        ? Math.min(PUBLIC_BODY_LIMIT_BYTES, jsonBodyLimitBytes)
        : jsonBodyLimitBytes,
    idleTimeoutMs: uploads.idleTimeoutMs,
    charge: caller ? { budget: edge.uploadBudget, caller } : null,
  };
}

/** How one JSON body is read. */
export interface BodyLimits {
  limitBytes: number;
  /** Cut off with a 408 when no byte has arrived for this long (UPLOAD_IDLE_TIMEOUT_MS). */
  idleTimeoutMs: number;
  /** The upload budget's shares the body is charged to while it is read (`bodyLimits`, rest/admission.ts). */
  charge: { budget: UploadBudget; caller: Auth } | null;
}

/**
 * The body's bytes, never buffered whole past the cap: a declared length past `limitBytes` is
 * a 413 before a byte is read, and so is the first byte past it; a body that stops arriving is a
 * 408; a charge its account refuses is a 429 or 503 (`UploadIntake`). Each of these closes the
 * connection, so that the rest of the body is not read (nor drained to keep the connection).
 */
export async function readRawBody(ctx: KoaContext, limits: BodyLimits): Promise<Buffer> {
  const { charge } = limits;
  const account = charge
    ? charge.budget.open({ organizationId: charge.caller.organizationId, callerId: charge.caller.actor.id })
    : null;
  let intake: UploadIntake;
  try {
    intake = new UploadIntake(ctx.req, account, {
      largestBody: limits.limitBytes,
      idleTimeoutMs: limits.idleTimeoutMs,
    });
  } catch (refusal) {
    account?.release();
    ctx.set('Connection', 'close');
    throw refusal;
  }
  try {
    const reading = getRawBody(ctx.req, {
      limit: limits.limitBytes,
      length: ctx.get('content-length') || undefined,
    });
    // Settles after a cut-off too (when the connection closes); the cut-off answers then.
    reading.catch(() => {});
    return await Promise.race([reading, intake.cutOff]);
  } catch (error) {
    if (error === intake.refusal) {
      ctx.set('Connection', 'close');
      throw error;
    }
    if ((error as { type?: string }).type === 'entity.too.large') {
      ctx.set('Connection', 'close');
      throw payloadTooLarge(`The request body is larger than ${byteSize(limits.limitBytes)}`);
    }
    throw badRequest('The request body could not be read');
  } finally {
    intake.stop();
    account?.release();
  }
}

/** True when the request carries a body at all (a length above 0, or chunked). */
function hasBody(ctx: KoaContext): boolean {
  const length = ctx.get('content-length');
  return (length !== '' && Number(length) > 0) || ctx.get('transfer-encoding') !== '';
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a REST body: one JSON object, in UTF-8, under the size cap. No body reads as `{}`
 * (so `curl -X POST` works on routes with nothing to send). 415 for any other media type
 * or charset (`+json` types such as merge-patch mean something else); 413 past the cap (the
 * stream is cut there, and past MAX_INPUT_NODES values); 408 when it stops arriving, 429 or
 * 503 past its account's share (`readRawBody`); 400 for bytes that are not UTF-8, malformed
 * JSON, a body that is not an object, a field named twice (no last-one-wins guessing), an
 * object wider than MAX_OBJECT_MEMBERS or nesting past MAX_INPUT_DEPTH.
 */
export async function readJsonObjectBody(
  ctx: KoaContext,
  limits: BodyLimits,
): Promise<Record<string, unknown>> {
  if (!hasBody(ctx)) return {};
  const type = ctx.get('content-type');
  if (!isUtf8Json(type)) {
    throw unsupportedMediaType(
      type
        ? `Content-Type ${type} is not supported here; send application/json (UTF-8)`
        : 'Send the body as application/json',
    );
  }
  const bytes = await readRawBody(ctx, limits);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw badRequest('The request body is not valid UTF-8');
  }
  checkJsonCost(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('The request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest('The request body must be a JSON object', [
      { path: [], message: 'must be a JSON object' },
    ]);
  }
  return value as Record<string, unknown>;
}

/** `application/json`, with no charset or `charset=utf-8` (JSON is UTF-8; RFC 8259 §8.1). */
function isUtf8Json(contentType: string): boolean {
  const [mediaType, ...parameters] = contentType.split(';');
  if (mediaType!.trim().toLowerCase() !== 'application/json') return false;
  return parameters.every((parameter) => {
    const [name, value = ''] = parameter.split('=');
    if (name!.trim().toLowerCase() !== 'charset') return true;
    const charset = value.trim().replaceAll('"', '').toLowerCase();
    return charset === 'utf-8' || charset === 'utf8';
  });
}

/** Most parameters a query string may hold (each value of a repeated name counts). */
export const MAX_QUERY_PARAMETERS = 100;

export type Query = Record<string, string | string[]>;

/**
 * A query string's parameters, in one linear pass: a repeated name gives a list. Used instead of
 * Koa's `ctx.query`, which looks every name up again among all of them (8,000 repeats of one
 * name held the event loop over a second). More than MAX_QUERY_PARAMETERS is a 400.
 */
export function readQuery(querystring: string): Query {
  const query: Query = Object.create(null);
  let count = 0;
  for (const [name, value] of new URLSearchParams(querystring)) {
    count += 1;
    if (count > MAX_QUERY_PARAMETERS) {
      throw badRequest(`The query string has more than ${MAX_QUERY_PARAMETERS} parameters`, [
        { path: ['query'], message: `must have at most ${MAX_QUERY_PARAMETERS} parameters` },
      ]);
    }
    const seen = query[name];
    if (seen === undefined) query[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else query[name] = [seen, value];
  }
  return query;
}

interface Frame {
  isObject: boolean;
  /** The current member's name (objects) or element's index (arrays). */
  name: string;
  /** Members (objects) or elements (arrays) begun so far. */
  count: number;
  /** The names seen so far, made at the second member: most objects are small. */
  names: Set<string> | null;
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
/** Characters that end a number or literal (true, false, null). */
const DELIMITERS = new Set([0x2c, 0x3a, 0x7b, 0x7d, 0x5b, 0x5d, 0x22, 0x20, 0x09, 0x0a, 0x0d]);

/**
 * The cost bound of a JSON body, checked on its text BEFORE it is parsed, so that no body can
 * make the parser, the schemas or the error answer do more than a bounded amount of work:
 * nesting past `maxDepth`, an object with more than MAX_OBJECT_MEMBERS members or a name given
 * twice (JSON.parse would keep the last silently) is a 400 with the path where it happens; more
 * than MAX_INPUT_NODES values in all is a 413. Domain errors, so that REST answers them as
 * problems and /trpc in tRPC's own shape. One linear pass that stops at the first breach,
 * one frame per level; it never throws on text that is not JSON (JSON.parse says that after).
 */
export function checkJsonCost(text: string, maxDepth = MAX_INPUT_DEPTH): void {
  const frames: Frame[] = [];
  let depth = 0;
  let nodes = 0;
  const pathOf = () => frames.slice(0, depth).map((frame) => (frame.isObject ? frame.name : frame.count - 1));
  /** A value begins here: counted, and as a member or element of the enclosing container. */
  const beginValue = () => {
    nodes += 1;
    if (nodes > MAX_INPUT_NODES) {
      throw payloadTooLarge(`The request body holds more than ${MAX_INPUT_NODES} values`);
    }
    const frame = frames[depth - 1];
    if (frame && !frame.isObject) frame.count += 1;
  };
  let expectName = false;
  const length = text.length;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // The string's end: the next quote not escaped (preceded by an even run of backslashes),
      // found by the engine; each backslash is looked at once, so the pass stays linear.
      const start = i;
      i = stringEnd(text, i + 1);
      if (expectName && depth > 0) {
        if (i - start - 2 > MAX_NAME_LENGTH) {
          throw badRequest(`A field name in the request body is longer than ${MAX_NAME_LENGTH} characters`, [
            { path: pathOf(), message: `field names must be at most ${MAX_NAME_LENGTH} characters` },
          ]);
        }
        addName(frames[depth - 1]!, nameOf(text, start, i), pathOf);
        expectName = false;
      } else beginValue();
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      beginValue();
      if (depth >= maxDepth) {
        throw badRequest(`The request body is nested more than ${maxDepth} levels deep`, [
          { path: pathOf(), message: `must not be nested more than ${maxDepth} levels deep` },
        ]);
      }
      frames[depth] ??= { isObject: false, name: '', count: 0, names: null };
      const frame = frames[depth]!;
      frame.isObject = c === 0x7b;
      frame.name = '';
      frame.count = 0;
      frame.names = null;
      depth += 1;
      expectName = frame.isObject;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      if (depth > 0) depth -= 1;
      expectName = false;
    } else if (c === 0x2c /* , */) {
      expectName = depth > 0 && frames[depth - 1]!.isObject;
    } else if (c !== 0x3a /* : */ && !WHITESPACE.has(c)) {
      // A number or a literal: one value, however long.
      beginValue();
      while (i + 1 < length && !DELIMITERS.has(text.charCodeAt(i + 1))) i += 1;
    }
    i += 1;
  }
}

/** Just past the quote that ends the string whose text begins at `from` (the text's end if none). */
function stringEnd(text: string, from: number): number {
  for (let quote = text.indexOf('"', from); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c /* \\ */) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
  }
  return text.length;
}

/** A member's name from its quoted text; a name with escapes is decoded by JSON itself. */
function nameOf(text: string, start: number, end: number): string {
  const name = text.slice(start + 1, end - 1);
  if (!name.includes('\\')) return name;
  try {
    return JSON.parse(text.slice(start, end)) as string;
  } catch {
    throw badRequest('The request body is not valid JSON');
  }
}

/** Counts a member of an object: at most MAX_OBJECT_MEMBERS, each name once. */
function addName(frame: Frame, name: string, pathOf: () => (string | number)[]): void {
  if (frame.count >= MAX_OBJECT_MEMBERS) {
    throw badRequest(`An object in the request body has more than ${MAX_OBJECT_MEMBERS} fields`, [
      { path: pathOf(), message: `must have at most ${MAX_OBJECT_MEMBERS} fields` },
    ]);
  }
  if (frame.count > 0) {
    frame.names ??= new Set([frame.name]);
    if (frame.names.has(name)) {
      frame.name = name;
      throw badRequest('The request body names a field twice', [
        { path: pathOf(), message: 'must appear only once' },
      ]);
    }
    frame.names.add(name);
  }
  frame.name = name;
  frame.count += 1;
}
