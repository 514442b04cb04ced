import type { ContractVariable, VariableKind } from '../contract-variable.ts';

/** One thing a scan found at one place of the text. */
export interface Finding {
  /** snake_case. */
  name: string;
  kind: VariableKind;
  /** Exactly as in the text: `text.slice(index, index + finding.text.length) === finding.text`. */
  text: string;
  index: number;
  /**
   * Only for a finding that stands at no place of the text (a PDF's form field: a negative
   * `index`, its `text` the field's name): how many times it stands in the document. Otherwise
   * counted in the text.
   */
  occurrences?: number;
}

/** At most this many variables in one answer; each `text` at most this long. */
export const MAX_VARIABLES = 500;
export const MAX_VARIABLE_TEXT = 1_000;

/**
 * The answer's variables out of every scan's findings, in order of first appearance:
 * - one variable per `text` (a value used several times is one variable), the first finding's
 *   name and kind winning;
 * - a finding that lies inside an earlier, longer one is dropped (a date inside a placeholder's
 *   description is the placeholder's);
 * - a placeholder (or a directive's subject) spelled two ways (`{{ name }}`, `{{name}}`) is two
 *   entries under one name, so that a client can replace both spellings; a value's name is its
 *   own: a second value under a taken name gets `_2`, `_3`, …;
 * - `occurrences` counts `text` without overlaps (`countOccurrences`), unless the finding gives it.
 */
export function toVariables(text: string, findings: readonly Finding[]): ContractVariable[] {
  const ordered = findings
    .filter((f) => f.text.length > 0 && f.text.length <= MAX_VARIABLE_TEXT && f.name)
    .sort((a, b) => a.index - b.index || b.text.length - a.text.length);
  const variables: ContractVariable[] = [];
  const byText = new Map<string, ContractVariable>();
  const names = new Set<string>();
  let coveredUntil = -1;
  for (const finding of ordered) {
    const end = finding.index + finding.text.length;
    const inText = finding.occurrences === undefined;
    const known = byText.get(finding.text);
    if (known) {
      if (inText) coveredUntil = Math.max(coveredUntil, end);
      continue;
    }
    if (inText && end <= coveredUntil) continue;
    if (inText) coveredUntil = Math.max(coveredUntil, end);
    if (variables.length >= MAX_VARIABLES) break;
    const variable: ContractVariable = {
      name: finding.kind === 'value' ? uniqueName(withLetterFirst(finding.name), names) : finding.name,
      kind: finding.kind,
      text: finding.text,
      occurrences: finding.occurrences ?? countOccurrences(text, finding.text),
    };
    names.add(variable.name);
    byText.set(finding.text, variable);
    variables.push(variable);
  }
  return variables;
}

/** A value named from a defined term such as `"10%"` would start with a digit: `value_10`. */
function withLetterFirst(name: string): string {
  return /^[a-z]/.test(name) ? name : `value_${name}`;
}

function uniqueName(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n += 1) candidate = `${name}_${n}`;
  return candidate;
}

/** Occurrences are counted in this much of the text (about 80 pages), and at least once. */
export const COUNTED_CHARS = 250_000;

/**
 * Where `needle` stands in `text` (from `start`, up to `end`), or -1; `findAll` calls `found` at each
 * non-overlapping appearance and stops when it returns false. Knuth–Morris–Pratt, so linear in the
 * text and the needle: `indexOf` is not, for a needle of 1,000 underscores in a text of slightly
 * shorter runs, and 500 such needles stalled a reader for a minute.
 */
function findAll(text: string, needle: string, end: number, found: (index: number) => boolean): void {
  const failure = new Int32Array(needle.length);
  for (let i = 1, k = 0; i < needle.length; i += 1) {
    while (k > 0 && needle[i] !== needle[k]) k = failure[k - 1]!;
    if (needle[i] === needle[k]) k += 1;
    failure[i] = k;
  }
  for (let i = 0, k = 0; i < end; i += 1) {
    while (k > 0 && text[i] !== needle[k]) k = failure[k - 1]!;
    if (text[i] === needle[k]) k += 1;
    if (k === needle.length) {
      if (!found(i + 1 - needle.length)) return;
      k = 0; // non-overlapping: the next appearance starts after this one
    }
  }
}

/** The first appearance of `needle` in the first `within` characters of `text`, or -1 (linear). */
export function indexWithin(text: string, needle: string, within: number): number {
  let at = -1;
  if (needle) {
    findAll(text, needle, Math.min(text.length, within), (index) => {
      at = index;
      return false;
    });
  }
  return at;
}

/** Non-overlapping appearances of `needle` in the first `COUNTED_CHARS` of `text`, at least 1. */
export function countOccurrences(text: string, needle: string): number {
  if (!needle) return 0;
  let count = 0;
  findAll(text, needle, Math.min(text.length, COUNTED_CHARS), () => {
    count += 1;
    return true;
  });
  // Every variable stands in the text, perhaps past the part counted.
  return Math.max(count, 1);
}
