import type { ParsedUrlQuery } from 'node:querystring';
import type { z } from 'zod';

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

/** The input a query string gives: only the fields the schema knows (query strings are not strict). */
export function queryInput(
  query: ParsedUrlQuery,
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
