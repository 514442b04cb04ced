import type { Context as KoaContext } from 'koa';
import type { z } from 'zod';
import { badRequest, INVALID_INPUT, type Issue, unsupportedMediaType } from '../domain/errors.ts';
import { MAX_ISSUES } from '../routers/shared.schema.ts';
import { type BodyLimits, checkJsonCost, readRawBody } from './admission.ts';

/**
 * Reading a request's input as its procedure's schema wants it: a REST body as one JSON object
 * (read, capped, charged and costed by rest/admission.ts), the query string, path parameters.
 */

/** True when the request carries a body at all (a length above 0, or chunked). */
export function hasBody(ctx: KoaContext): boolean {
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
