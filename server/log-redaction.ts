/**
 * The fields whose values never reach a log line, wherever they sit in the first levels of a
 * logged object (`password`, `user.password`, `request.headers.cookie`, …): a second line of
 * defence, since nothing logs headers or bodies on purpose.
 *
 * Why not pino's `redact` option: @pinojs/redact (pino 10) runs every logged value, numbers
 * and strings included, through a clone and re-parses every path on every call — about 15 KB
 * of garbage per log line, more than the rest of a small request allocates (bench:http).
 * This walk allocates nothing for a line without such a field.
 */
export const REDACTED_FIELDS: ReadonlySet<string> = new Set([
  'password',
  'passwordHash',
  'secret',
  'cookie',
  'authorization',
  'databaseUrl',
]);

export const CENSOR = '[redacted]';

/** pino serializers censoring each redacted field at the top level of a line or a child's bindings. */
export const redactingSerializers: Record<string, (value: unknown) => unknown> = Object.fromEntries(
  [...REDACTED_FIELDS].map((field) => [field, () => CENSOR]),
);

/** Levels below the line itself that are searched; deeper values are logged as they are. */
const MAX_DEPTH = 4;

/** The logged object with each redacted field censored; the caller's object is never changed. */
export function redactLogFields(fields: Record<string, unknown>): Record<string, unknown> {
  return redactObject(fields, 0);
}

function redactObject(object: Record<string, unknown>, depth: number): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(object)) {
    const value = object[key];
    const redacted = REDACTED_FIELDS.has(key) ? CENSOR : redactValue(value, depth + 1);
    if (redacted !== value) {
      copy ??= { ...object };
      copy[key] = redacted;
    }
  }
  return copy ?? object;
}

function redactValue(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const redacted = redactValue(item, depth + 1);
      if (redacted !== item) {
        copy ??= [...value];
        copy[index] = redacted;
      }
    });
    return copy ?? value;
  }
  // Plain objects only: an Error, a Date or a class instance keeps its own serialisation.
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  return redactObject(value as Record<string, unknown>, depth);
}
