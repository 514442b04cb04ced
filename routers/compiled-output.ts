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
 * Refused at start: a schema with a transform (zod cannot write its JSON Schema); a `format`
 * without the `pattern` zod checks it by (uuid and date-time have one), since formats are not
 * checked here; a regular expression with flags (JSON Schema keeps only its source); and a union
 * of more than one branch besides null (Ajv removes a branch's unknown fields while trying it,
 * so a later branch would see the object stripped). String lengths count code points where zod
 * counts UTF-16 units: never stricter than the input rules.
 */
export function compiledOutput<T extends z.ZodType>(
  schema: T,
  /** The answer is held to this one instead, when it is deliberately looser (the event log's). */
  { checkedAs = schema }: { checkedAs?: z.ZodType } = {},
): T {
  const jsonSchema = z.toJSONSchema(checkedAs, { io: 'output', override: refuseFlaggedPatterns });
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

/** Why an answer failed its check: the cause tRPC's 500 carries and the error log shows. */
class OutputCheckError extends Error {
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
  for (const union of ['anyOf', 'oneOf'] as const) {
    const branches = record[union];
    if (Array.isArray(branches) && branches.filter((branch) => branch?.type !== 'null').length > 1) {
      throw new Error(`compiledOutput: ${path} is a union of more than one branch besides null`);
    }
  }
  for (const [key, value] of Object.entries(record)) refuseUncheckable(value, `${path}/${key}`);
}

/** A zod regular expression with flags would be checked without them: refused (see above). */
function refuseFlaggedPatterns({ zodSchema }: { zodSchema: unknown }): void {
  // A format schema (z.uuid()) carries its pattern in its own definition, `.regex()` in a check's.
  type Definition = { pattern?: unknown; checks?: { _zod: { def: Definition } }[] };
  const definition = (zodSchema as { _zod: { def: Definition } })._zod.def;
  const definitions = [definition, ...(definition.checks ?? []).map((check) => check._zod.def)];
  for (const { pattern } of definitions) {
    if (pattern instanceof RegExp && pattern.flags !== '') {
      throw new Error(`compiledOutput: the pattern /${pattern.source}/${pattern.flags} has flags`);
    }
  }
}
