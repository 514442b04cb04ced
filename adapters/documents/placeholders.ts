/**
 * The variables of a contract as its placeholders name them, with no network: `{name}`,
 * `{{name}}`, `[Company Name]`, `<<Company>>`, `«MergeField»`, and labelled blanks
 * (`Effective Date: ________`). Returned in snake_case, each once, in order of first
 * appearance.
 *
 * Every step is linear in the text (contracts are user input, and table layouts give long
 * runs of spaces): a bracket pattern takes what lies between its delimiters with one
 * character class that cannot cross them, and the name is checked after trimming, so no
 * two quantifiers compete for the same characters; labelled blanks are found by a scan.
 */
import type { Finding } from './findings.ts';

interface BracketPattern {
  pattern: RegExp;
  /** What the trimmed text must be to count as a name. */
  name: RegExp;
}

const NAME = /^[A-Za-z][\w .-]{0,60}$/;
const BRACKETS: BracketPattern[] = [
  { pattern: /\{\{([^{}]*)\}\}/g, name: NAME },
  { pattern: /(?<!\{)\{([^{}]*)\}(?!\})/g, name: NAME },
  { pattern: /<<([^<>]*)>>/g, name: NAME },
  { pattern: /«([^«»]*)»/g, name: NAME },
  // [Company Name]: words, not citations ([1]), checkboxes ([ ], [x]) or links ([text](url)).
  { pattern: /\[([^[\]]*)\](?!\()/g, name: /^[A-Za-z][A-Za-z0-9 ,.'&/-]{1,60}$/ },
];

export function scanPlaceholders(text: string): Finding[] {
  const found: Finding[] = [];
  const add = (index: number, raw: string, whole: string) => {
    const name = toSnakeCase(raw);
    if (name && isPlausibleName(name)) found.push({ index, name, kind: 'placeholder', text: whole });
  };
  for (const { pattern, name } of BRACKETS) {
    for (const match of text.matchAll(pattern)) {
      const inner = match[1]!;
      const trimmed = inner.trim();
      if (name.test(trimmed)) add(match.index, trimmed, match[0]);
    }
  }
  for (const blank of labelledBlanks(text)) add(blank.index, blank.label, blank.text);
  return found.sort((a, b) => a.index - b.index);
}

const LABEL_FIRST = /[A-Z]/;
const LABEL_CHAR = /[A-Za-z0-9'/&() -]/;
const SPACE = /\s/;

/**
 * "Effective Date: ________" or "Name ______": a label of 2–51 characters (a capital first;
 * letters, digits, spaces and `'/&()-`), optional spaces and colon, then three or more
 * underscores. The label follows the start of the text, a line break or tab, two or more
 * white-space characters, or a `.` or `;`, and white space. Scanned from each run of
 * underscores back to its label, and each match resumes after its underscores (as a global
 * regular expression would), so the whole scan is linear.
 */
function labelledBlanks(text: string): { index: number; label: string; text: string }[] {
  const blanks: { index: number; label: string; text: string }[] = [];
  let resumeAt = 0;
  let from = 0;
  for (;;) {
    const underscores = text.indexOf('___', from);
    if (underscores < 0) break;
    let end = underscores + 3;
    while (text[end] === '_') end += 1;
    from = end;
    // Back over `\s* :? \s*` to the end of the label.
    let labelEnd = underscores;
    while (labelEnd > resumeAt && SPACE.test(text[labelEnd - 1]!)) labelEnd -= 1;
    if (labelEnd > resumeAt && text[labelEnd - 1] === ':') {
      labelEnd -= 1;
      while (labelEnd > resumeAt && SPACE.test(text[labelEnd - 1]!)) labelEnd -= 1;
    }
    // Trailing spaces belong to the gap, not the label (which ends with a non-space).
    // The earliest start wins, as the leftmost match of a regular expression does.
    let labelFloor = labelEnd;
    while (labelFloor > resumeAt && labelEnd - labelFloor < 51 && LABEL_CHAR.test(text[labelFloor - 1]!)) {
      labelFloor -= 1;
    }
    // A one-letter label is no name (it is dropped later), but it still ends a match.
    for (let start = labelFloor; start < labelEnd; start += 1) {
      if (!LABEL_FIRST.test(text[start]!) || !followsBoundary(text, start, resumeAt)) continue;
      blanks.push({ index: start, label: text.slice(start, labelEnd), text: text.slice(start, end) });
      resumeAt = end;
      break;
    }
  }
  return blanks;
}

/** Whether `start` follows `^`, `[\n\t]`, `\s{2,}` or `[.;]`, then white space (none before `floor`). */
function followsBoundary(text: string, start: number, floor: number): boolean {
  let at = start;
  let spaces = 0;
  while (at > floor && SPACE.test(text[at - 1]!)) {
    at -= 1;
    spaces += 1;
    if (spaces >= 2 || text[at] === '\n' || text[at] === '\t') return true;
  }
  if (at === 0) return true;
  return at > floor && (text[at - 1] === '.' || text[at - 1] === ';');
}

/** `Company Name`, `companyName`, `Company-Name` → `company_name`. */
export function toSnakeCase(raw: string): string {
  return raw
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/(?<=[A-Z])(?=[A-Z][a-z])/g, '_')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')
    .slice(0, 64);
}

/** At most six words, and not a lone letter or a number. */
function isPlausibleName(name: string): boolean {
  return /^[a-z]/.test(name) && name.length >= 2 && name.split('_').length <= 6;
}
