import type { Context as KoaContext } from 'koa';
import getRawBody from 'raw-body';
import type { z } from 'zod';
import { byteSize } from '../domain/byte-size.ts';
import type { Auth } from '../domain/context.ts';
import {
  badRequest,
  INVALID_INPUT,
  type Issue,
  payloadTooLarge,
  unsupportedMediaType,
} from '../domain/errors.ts';
import {
  MAX_INPUT_DEPTH,
  MAX_INPUT_NODES,
  MAX_ISSUES,
  MAX_NAME_LENGTH,
  MAX_OBJECT_MEMBERS,
} from '../routers/shared.schema.ts';
import type { UploadBudget } from './upload-budget.ts';
import { UploadIntake } from './upload-budget.ts';

/** Reading a request's input: the query string, the raw body (bounded, charged, timed), JSON. */

/** How one JSON body is read. */
export interface BodyLimits {
  limitBytes: number;
  /** Cut off with a 408 when no byte has arrived for this long (UPLOAD_IDLE_TIMEOUT_MS). */
  idleTimeoutMs: number;
  /** The upload budget's shares the body is charged to while it is read (`bodyLimits`, rest/admission.ts). */
  charge: { budget: UploadBudget; caller: Auth } | null;
}

/** True when the request carries a body at all (a length above 0, or chunked). */
export function hasBody(ctx: KoaContext): boolean {
  const length = ctx.get('content-length');
  return (length !== '' && Number(length) > 0) || ctx.get('transfer-encoding') !== '';
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

type Schema = z.core.$ZodType;

/** The schema under optional/nullable/default/…: what a present value must be. */
function unwrap(schema: Schema): Schema {
  for (;;) {
    const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
    switch (def.type) {
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'readonly':
      case 'catch':
      case 'nonoptional':
        schema = def.innerType as Schema;
        continue;
      case 'pipe': {
        // `.transform()`: the input side says what is accepted; `z.preprocess()`: the output side.
        const input = def.in as Schema;
        schema = input._zod.def.type === 'transform' ? (def.out as Schema) : input;
        continue;
      }
      default:
        return schema;
    }
  }
}

/** Plain decimal notation only: `0x10`, ` 3`, `Infinity` and the empty string stay strings (and are refused). */
const DECIMAL = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

function fromString(value: string, schema: Schema): unknown {
  switch (schema._zod.def.type) {
    case 'number': {
      const number = Number(value);
      return DECIMAL.test(value) && Number.isFinite(number) ? number : value;
    }
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    default:
      return value;
  }
}

/**
 * A path or query value (always text) as the field's schema wants it: numbers, booleans,
 * and arrays (a single value becomes a one-element list), as trpc-to-openapi did for query
 * strings. Text that does not parse stays text, so the schema refuses it with an issue on
 * the field. Nothing is coerced inside the schema itself, and JSON bodies never are.
 */
export function coerceParameter(value: string | string[], schema: Schema): unknown {
  const target = unwrap(schema);
  if (target._zod.def.type === 'array') {
    const element = unwrap((target._zod.def as unknown as { element: Schema }).element);
    return (Array.isArray(value) ? value : [value]).map((item) => fromString(item, element));
  }
  // A repeated parameter where one value is expected: left as a list, which the schema refuses.
  return Array.isArray(value) ? value : fromString(value, target);
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

/**
 * The input a query string gives, checked like a body (api.md): a parameter the route does not
 * take (a path parameter's name included), or one given twice where one value is meant, is a
 * 400 with an issue on it; a value of the wrong form is refused by the schema after this.
 * `shape` empty: a route that takes no query parameter (a body's, an upload's).
 */
export function queryInput(
  query: Query,
  shape: Record<string, Schema>,
  skip: readonly string[],
): Record<string, unknown> {
  const issues: Issue[] = [];
  for (const name of Object.keys(query)) {
    if (issues.length >= MAX_ISSUES) break;
    if (skip.includes(name))
      issues.push({ path: [name], message: 'Unknown parameter (it is a path parameter)' });
    else if (!Object.hasOwn(shape, name)) issues.push({ path: [name], message: 'Unknown parameter' });
  }
  const input: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(shape)) {
    const value = Object.hasOwn(query, name) ? query[name] : undefined;
    if (value === undefined || skip.includes(name)) continue;
    if (Array.isArray(value) && !takesList(schema)) {
      issues.push({ path: [name], message: 'must be given once' });
    } else input[name] = coerceParameter(value, schema);
  }
  if (issues.length > 0) throw badRequest(INVALID_INPUT, issues.slice(0, MAX_ISSUES));
  return input;
}

/** Whether a parameter takes a list (repeated: `?id=a&id=b`). */
function takesList(schema: Schema): boolean {
  return unwrap(schema)._zod.def.type === 'array';
}
