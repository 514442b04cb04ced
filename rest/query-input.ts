import type { z } from 'zod';
import { badRequest } from '../domain/errors.ts';

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

/** The input a query string gives: only the fields the schema knows (query strings are not strict). */
export function queryInput(
  query: Query,
  shape: Record<string, Schema>,
  skip: readonly string[],
): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(shape)) {
    const value = Object.hasOwn(query, name) ? query[name] : undefined;
    if (value === undefined || skip.includes(name)) continue;
    input[name] = coerceParameter(value, schema);
  }
  return input;
}
