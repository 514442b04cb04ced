import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { z } from 'zod';

/**
 * The output check of a hot list, compiled once from the zod schema's JSON Schema by Ajv.
 *
 * Why: tRPC checks every answer against its output schema, and zod's parse copies the answer
 * as it goes: for 50 slides that was a fifth to a quarter of the request's node CPU under load
 * (`npm run bench:http`), most of it the garbage the copies leave. Ajv checks the document's rules
 * in place, with code generated once.
 *
 * What stays the same: the zod schema is still what the OpenAPI document, the tRPC client's
 * types and tRPC's error on a failed check (a 500) come from, and the answer is held to the JSON
 * Schema the document shows: types, required fields, enums, patterns, bounds. Fields the schema
 * does not list are removed (zod's strip) and defaults filled in.
 * What it does not re-check are the rules JSON Schema cannot say (refinements such as the list of
 * currency codes, trimming) and a strict object's refusal of unknown fields (removed here): those
 * are input rules, and every stored value passed them on its way in.
 *
 * Refused at start: a schema with a transform (zod cannot write its JSON Schema), and a `format`
 * without the `pattern` zod checks it by (uuid and date-time have one), since formats are not
 * checked here. String lengths count code points where zod counts UTF-16 units: never stricter
 * than the input rules.
 */
export function compiledOutput<T extends z.ZodType>(schema: T): T {
  const jsonSchema = z.toJSONSchema(schema, { io: 'output' });
  refuseUncheckable(jsonSchema);
  const validate = ajv.compile(jsonSchema);
  const parse = (value: unknown) => {
    if (!validate(value)) throw new OutputCheckError(validate.errors ?? []);
    return value;
  };
  // The zod schema underneath for everything that reads it (trpc-to-openapi, types); tRPC calls
  // `parse` (getParseFn prefers it when there is no `parseAsync`).
  return Object.create(schema, {
    parse: { value: parse },
    parseAsync: { value: undefined },
  }) as T;
}

export class OutputCheckError extends Error {
  readonly errors: ErrorObject[];
  constructor(errors: ErrorObject[]) {
    super(
      `The answer does not match its schema: ${errors.map((e) => `${e.instancePath} ${e.message}`).join('; ')}`,
    );
    this.errors = errors;
  }
}

const ajv = new Ajv2020({
  removeAdditional: true, // `additionalProperties: false` is zod's strip
  useDefaults: true,
  unicodeRegExp: false, // zod's patterns are plain JavaScript regular expressions
  multipleOfPrecision: 9,
  validateFormats: false, // each format comes with its pattern (refuseUncheckable)
  strict: true,
  allErrors: false,
});

/** Throws at start for a JSON Schema this check would not hold to zod's rules (arrays walked by index). */
function refuseUncheckable(node: unknown, path = '#'): void {
  if (node === null || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  if (typeof record.format === 'string' && typeof record.pattern !== 'string') {
    throw new Error(`compiledOutput: ${path} has format ${record.format} without a pattern`);
  }
  for (const [key, value] of Object.entries(record)) refuseUncheckable(value, `${path}/${key}`);
}
