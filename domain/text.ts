import { z } from 'zod';

const NUL = 'must not contain the NUL character';
const LONE_SURROGATE = 'must not contain a lone UTF-16 surrogate (text must be valid Unicode)';

/** Why PostgreSQL could not store this string (text columns refuse NUL, jsonb also lone surrogates), or null. */
export function unstorableTextProblem(value: string): string | null {
  if (value.includes('\u0000')) return NUL;
  if (!value.isWellFormed()) return LONE_SURROGATE;
  return null;
}

/**
 * A string PostgreSQL can store: text columns refuse the NUL character, jsonb also a lone
 * UTF-16 surrogate. Every procedure's input is checked for both before its schema runs
 * (`storableInput` in routers/trpc.ts); this says it again where a schema is used on its own.
 * Here, not in routers/, because value schemas of the domain (a slide's product data, a
 * deck's palette) are built from it too.
 */
export function text() {
  return z.string().check((ctx) => {
    const problem = unstorableTextProblem(ctx.value);
    if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
  });
}
