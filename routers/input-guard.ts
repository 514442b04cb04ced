import type { Issue } from './errors.ts';

/** Deepest nesting of objects and arrays any input may have (the input object itself is level 1). */
export const MAX_INPUT_DEPTH = 32;

/** Enough to show what is wrong without letting a hostile input make a huge answer. */
const MAX_ISSUES = 20;

const NUL = 'must not contain the NUL character';
const LONE_SURROGATE = 'must not contain a lone UTF-16 surrogate (text must be valid Unicode)';

/** Why PostgreSQL could not store this string (text columns refuse NUL, jsonb also lone surrogates), or null. */
export function unstorableTextProblem(value: string): string | null {
  if (value.includes('\u0000')) return NUL;
  if (!value.isWellFormed()) return LONE_SURROGATE;
  return null;
}

/**
 * Walks a procedure's raw input, whatever the transport brought it (REST, /trpc, an in-process
 * call), and lists what no schema should have to think about: strings and field names the
 * database cannot store, numbers that are not finite (JSON's 1e400 parses as Infinity), a
 * field named `__proto__` (it cannot survive a round trip through a JavaScript object) and
 * nesting past MAX_INPUT_DEPTH. Iterative, so no input can exhaust the stack.
 */
export function inputIssues(input: unknown): Issue[] {
  const issues: Issue[] = [];
  const pending: { value: unknown; path: (string | number)[]; depth: number }[] = [
    { value: input, path: [], depth: 1 },
  ];
  while (pending.length > 0 && issues.length < MAX_ISSUES) {
    const { value, path, depth } = pending.pop()!;
    if (typeof value === 'string') {
      const problem = unstorableTextProblem(value);
      if (problem) issues.push({ path, message: problem });
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) issues.push({ path, message: 'must be a finite number' });
    } else if (value instanceof File) {
      const problem = unstorableTextProblem(value.name);
      if (problem) issues.push({ path, message: `file name ${problem}` });
    } else if (Array.isArray(value) || isPlainObject(value)) {
      if (depth > MAX_INPUT_DEPTH) {
        issues.push({ path, message: `must not be nested more than ${MAX_INPUT_DEPTH} levels deep` });
        continue;
      }
      const entries: [string | number, unknown][] = Array.isArray(value)
        ? value.map((item, index) => [index, item])
        : Object.entries(value);
      const children: typeof pending = [];
      for (const [key, item] of entries) {
        const itemPath = [...path, key];
        const problem =
          typeof key !== 'string'
            ? null
            : key === '__proto__'
              ? 'this field name is not allowed'
              : unstorableTextProblem(key);
        if (problem)
          issues.push({ path: itemPath, message: key === '__proto__' ? problem : `field name ${problem}` });
        else children.push({ value: item, path: itemPath, depth: depth + 1 });
      }
      // Reversed onto the stack, so that issues come out in the order the fields were written.
      for (let i = children.length - 1; i >= 0; i -= 1) pending.push(children[i]!);
    }
  }
  return issues.slice(0, MAX_ISSUES);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
