import type { ContractVariable, VariableKind } from '../../domain/ports/text-extractor.ts';

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
 * - `occurrences` counts `text` in the whole text, without overlaps.
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
      name: finding.kind === 'value' ? uniqueName(finding.name, names) : finding.name,
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

function uniqueName(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n += 1) candidate = `${name}_${n}`;
  return candidate;
}

/** Non-overlapping appearances of `needle` (indexOf: linear in the text for each needle). */
export function countOccurrences(text: string, needle: string): number {
  if (!needle) return 0;
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) count += 1;
  return count;
}
