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

/**
 * An e-mail address (at most 320 characters, RFC 5321). The length is checked first and ends the
 * check: a megabyte of text never reaches the address pattern (~10 ms of the event loop).
 */
export function emailText() {
  return z.string().max(320, { abort: true }).email();
}

/** A URL of at most `max` characters, the length checked first (as `emailText`). */
export function urlText(max: number) {
  return z.string().max(max, { abort: true }).url();
}
