import pino from 'pino';

/**
 * The fields whose values never reach a log line, wherever they sit in the first levels of a
 * logged object (`password`, `user.password`, `request.headers.cookie`, …): a second line of
 * defence, since nothing logs headers or bodies on purpose.
 *
 * Why not pino's `redact` option: @pinojs/redact (pino 10) runs every logged value, numbers
 * and strings included, through a clone and re-parses every path on every call — about 15 KB
 * of garbage per log line, more than the rest of a small request allocates (bench:http).
 * This walk allocates nothing for a line without such a field or nested objects.
 *
 * Not searched: a child logger's nested bindings (its top-level ones are), class instances
 * other than errors, values deeper than four levels, and the message text.
 */
export const REDACTED_FIELDS: ReadonlySet<string> = new Set([
  'password',
  'passwordHash',
  'secret',
  'cookie',
  'Cookie',
  'set-cookie',
  'Set-Cookie',
  'authorization',
  'Authorization',
  'databaseUrl',
]);

export const CENSOR = '[redacted]';

/**
 * pino serializers: each redacted field censored at the top level of a line or of a child's
 * bindings (pino passes a child's bindings through serializers, not through `formatters`), and
 * an error's own fields searched like a line's (the error serializer runs after the formatter).
 */
export const redactingSerializers: Record<string, (value: unknown) => unknown> = {
  ...Object.fromEntries([...REDACTED_FIELDS].map((field) => [field, () => CENSOR])),
  err: (error: unknown) =>
    error instanceof Error ? redactLogFields({ ...pino.stdSerializers.err(error) }) : error,
};

/** Levels below the line itself that are searched; deeper values are logged as they are. */
const MAX_DEPTH = 4;
/** Nested objects and arrays searched in one line; past that, values read `[truncated]`. */
const MAX_NESTED = 1000;

/** The walk of one line, made when it first meets a nested object (most lines have none). */
interface Walk {
  /** The objects being searched, outermost first: meeting one again is a cycle. */
  path: object[];
  nested: number;
}

/** The logged object with each redacted field censored; the caller's object is never changed. */
export function redactLogFields(fields: Record<string, unknown>): Record<string, unknown> {
  return redactObject(fields, 0, undefined);
}

function redactObject(
  object: Record<string, unknown>,
  depth: number,
  walk: Walk | undefined,
): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(object)) {
    const value = object[key];
    let redacted: unknown = value;
    if (REDACTED_FIELDS.has(key)) redacted = CENSOR;
    else if (value !== null && typeof value === 'object') {
      walk ??= { path: [object], nested: 0 };
      redacted = redactNested(value, depth + 1, walk);
    }
    if (redacted !== value) {
      copy ??= { ...object };
      copy[key] = redacted;
    }
  }
  return copy ?? object;
}

/** An array or plain object below the line; an Error, a Date or a class instance keeps its own serialisation. */
function redactNested(value: object, depth: number, walk: Walk): unknown {
  if (depth > MAX_DEPTH) return value;
  const prototype = Object.getPrototypeOf(value);
  const isArray = Array.isArray(value);
  if (!isArray && prototype !== Object.prototype && prototype !== null) return value;
  // A cycle is cut (pino would print it once more, unredacted, from the original object).
  if (walk.path.includes(value)) return '[circular]';
  if (++walk.nested > MAX_NESTED) return '[truncated]';
  walk.path.push(value);
  try {
    if (!isArray) return redactObject(value as Record<string, unknown>, depth, walk);
    let copy: unknown[] | undefined;
    (value as unknown[]).forEach((item, index) => {
      const redacted = item !== null && typeof item === 'object' ? redactNested(item, depth + 1, walk) : item;
      if (redacted !== item) {
        copy ??= [...(value as unknown[])];
        copy[index] = redacted;
      }
    });
    return copy ?? value;
  } finally {
    walk.path.pop();
  }
}
