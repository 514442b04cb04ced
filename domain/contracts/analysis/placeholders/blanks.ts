import type { Finding } from '../findings.ts';
import { isPlausibleName, toSnakeCase } from './names.ts';

/**
 * Blanks named by their label: `Effective Date: ________`, `Purchase Price: $________`, a
 * key-terms row `Governing Law\t________`, and (through `labelBefore`, for the bracket scan)
 * `Amount: [●]`, `Fee\t$[_____]`. In running text the finding's text runs from the label to
 * the end of the blank, since the blank alone (`________`) stands for a different variable at
 * each place; in a table, where the blank is a cell of its own, it is the cell (`________`), what
 * a client replaces, and blank cells written alike are one variable.
 *
 * Linear: each run of underscores is found once and its label read backwards over at
 * most MAX_LABEL characters, never before the end of the previous blank.
 */
const MAX_LABEL = 60;
const LABEL_CHAR = /[\p{L}\p{N}'’/&() -]/u;
const SPACE = /[ \t]/;
/** A label that ends like a sentence going on (`The term is ____`) is prose, not a label. */
const NOT_A_LABEL_END = new Set([
  'a',
  'an',
  'the',
  'of',
  'to',
  'by',
  'for',
  'in',
  'on',
  'at',
  'and',
  'or',
  'is',
  'are',
  'be',
  'was',
  'were',
  'shall',
  'will',
  'than',
  'with',
  'from',
  'as',
  'per',
  'not',
]);

/** Where a signature goes (`By: ______`): signed by hand, never filled in from data. */
const SIGNATURE_LABEL = /^(?:by|signature|signed|sign here|initials?|witness)$/i;

export interface Label {
  /** Where the label starts. */
  index: number;
  name: string;
  /** Whether the blank is a table cell of its own (a tab between label and blank). */
  ownCell: boolean;
}

/** Where a labelled blank's text starts: at its label, or at the blank when it is a cell. */
export function labelledStart(label: Label, blank: number): number {
  return label.ownCell ? blank : label.index;
}

export function scanUnderscoreBlanks(text: string): Finding[] {
  const found: Finding[] = [];
  let floor = 0;
  // Underscores, or their full-width form (East Asian fonts and forms).
  for (const run of text.matchAll(/[_＿]{3,}/g)) {
    const underscores = run.index;
    const end = underscores + run[0].length;
    // A blank inside brackets (`[____]`) is the bracket scan's.
    if (text[underscores - 1] === '[' || (text[underscores - 1] === '$' && text[underscores - 2] === '[')) {
      floor = end;
      continue;
    }
    const start = text[underscores - 1] === '$' ? underscores - 1 : underscores;
    const label = labelBefore(text, start, floor);
    if (label) {
      const from = labelledStart(label, start);
      found.push({
        index: from,
        name: label.name,
        kind: 'placeholder',
        text: text.slice(from, end),
      });
    }
    floor = end;
  }
  return found;
}

/**
 * The label of a blank that starts at `blank`: a capital first, then letters, digits, spaces and
 * `'/&()-`, 2–60 characters, at the start of a line or a table cell, or after `: `, `. `, `; `
 * or a previous blank (`By: ____ Name: ____`); then spaces, and a colon or a tab. Nothing
 * before `floor` is read.
 */
export function labelBefore(text: string, blank: number, floor: number): Label | null {
  let labelEnd = blank;
  let gap = '';
  while (labelEnd > floor && SPACE.test(text[labelEnd - 1]!)) gap += text[--labelEnd];
  if (labelEnd > floor && text[labelEnd - 1] === ':') {
    gap += ':';
    labelEnd -= 1;
    while (labelEnd > floor && SPACE.test(text[labelEnd - 1]!)) labelEnd -= 1;
  }
  let labelStart = labelEnd;
  while (labelStart > floor && labelEnd - labelStart < MAX_LABEL && LABEL_CHAR.test(text[labelStart - 1]!)) {
    labelStart -= 1;
  }
  // The earliest capital that follows a boundary starts the label.
  for (let start = labelStart; start < labelEnd - 1; start += 1) {
    if (!/[A-Z]/.test(text[start]!) || !followsBoundary(text, start)) continue;
    const label = text.slice(start, labelEnd).trim();
    const lastWord = label.slice(label.lastIndexOf(' ') + 1).toLowerCase();
    // Without a colon or a tab, a line that ends in a blank is a signature line under a printed
    // name (`James Smith ______`), not a label.
    const marked = gap.includes(':') || gap.includes('\t');
    if (!marked || (!gap.includes(':') && NOT_A_LABEL_END.has(lastWord))) return null;
    const name = toSnakeCase(label);
    if (!isPlausibleName(name) || SIGNATURE_LABEL.test(label)) return null;
    return { index: start, name, ownCell: gap.includes('\t') };
  }
  return null;
}

/**
 * Whether `start` follows the text's start, a line break or tab, or `:`, `.`, `;`, `_` or `]`
 * and a space (the last two end a previous blank, which may lie before the floor).
 */
function followsBoundary(text: string, start: number): boolean {
  if (start === 0) return true;
  const before = text[start - 1]!;
  if (before === '\n' || before === '\t') return true;
  return before === ' ' && start >= 2 && /[:.;_＿\]]/.test(text[start - 2]!);
}
