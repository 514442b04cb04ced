import type { Finding } from '../findings.ts';
import { definedAfter, labelBefore, labelledBlank } from './blanks.ts';
import { isDescription } from './descriptions.ts';
import { descriptionName, isPlausibleName, nameAround } from './names.ts';

/**
 * Square brackets: `[Company Name]`, a description of any length (`[Full name of the authorized
 * signatory signing for the employer]`, `[Reference to … (for example, "…")]`, nested
 * parentheses, quotes and brackets inside), and blanks (`[________]`, `[●]`, `[•]`, `$[___]`,
 * named by the label before them: `Purchase Price: $[_____]`).
 *
 * Not placeholders: citations (`[1]`), checkboxes (`[ ]`, `[x]`), links (`[text](url)`), an
 * index or an inflection (`items[0]`, `Party[ies]`), editorial notes (`[Reserved]`,
 * `[Intentionally omitted]`, `[Signature page follows]`, `[sic]`, `[Note to Draft: …]`),
 * optional clauses (`[The Company shall …]`, see `isOptionalClause`), JSON and code.
 *
 * Brackets are paired in one pass with a stack (each `]` closes the innermost open `[`), so
 * nesting is followed in linear time whatever the input (a megabyte of `[[[[` included); an
 * outer pair that is no placeholder (an optional clause) still lets the placeholders inside it
 * be found, and a placeholder inside another one is dropped when the findings are merged.
 */
const MAX_BRACKET = 600;
const MAX_LINES = 3;

export function scanBrackets(text: string): Finding[] {
  const found: Finding[] = [];
  const open: number[] = [];
  for (let at = 0; at < text.length; at += 1) {
    const char = text[at];
    if (char === '[') open.push(at);
    else if (char === ']' && open.length > 0) {
      const start = open.pop()!;
      const finding = at - start <= MAX_BRACKET ? readBracket(text, start, at) : null;
      if (finding) found.push(finding);
    }
  }
  return found;
}

function readBracket(text: string, open: number, close: number): Finding | null {
  const before = text[open - 1] ?? '';
  const after = text[close + 1] ?? '';
  // `items[0]`, `Party[ies]`, `[text](url)`: an index, an inflection, a link.
  if (/[\w\])]/.test(before) || after === '(') return null;
  const raw = text.slice(open + 1, close);
  if (raw.split('\n').length > MAX_LINES) return null;
  const content = raw.replace(/\s+/g, ' ').trim();
  if (isBlank(content) || spacedBlank(text, open, raw)) {
    const start = before === '$' || before === '€' || before === '£' ? open - 1 : open;
    return blankFinding(text, start, close + 1);
  }
  if (!isDescription(content)) return null;
  // "ARTICLE I [Term]", "Section 2.01 [Calling Card].": a caption after its reference, not a blank.
  if (CAPTION_REFERENCE.test(text.slice(Math.max(0, open - 24), open))) return null;
  const name = descriptionName(content);
  if (!name || !isPlausibleName(name)) return null;
  // `[[Company Name]]`: a wiki's or a generator's double brackets are the field's.
  const doubled = before === '[' && after === ']';
  const start = doubled ? open - 1 : open;
  return { index: start, name, kind: 'placeholder', text: text.slice(start, close + (doubled ? 2 : 1)) };
}

/**
 * Brackets holding only white space: a blank where a form leaves room to write (`between [        ]
 * and`: a wide gap, four spaces or more or a tab), or after a currency sign (`$[ ]`). A checkbox
 * (`[ ] Yes`, `Please tick: [   ] No`) holds up to three spaces, and a wider one stands first on
 * its line or cell.
 */
function spacedBlank(text: string, open: number, raw: string): boolean {
  if (!/^[ \t\u00a0]+$/.test(raw)) return false;
  if (/[$€£]/.test(text[open - 1] ?? '')) return true;
  return (raw.includes('\t') || raw.length >= 4) && writtenBefore(text, open);
}

/**
 * Whether the line or table cell holds text before `at`. Read back over white space only, not to
 * the line's start: a search back for the line's start from each bracket would read a long line
 * (or, for a tab, the whole text before it) once per bracket, quadratic.
 */
function writtenBefore(text: string, at: number): boolean {
  for (let i = at - 1; i >= 0; i -= 1) {
    const char = text[i]!;
    if (char === '\n' || char === '\t') return false;
    if (char.trim() !== '') return true;
  }
  return false;
}

/** The end of a section or article reference: "Section 2.01 ", "ARTICLE IV ", "Sec. 5 ", "or 10.2 ". */
const CAPTION_REFERENCE =
  /(?:\b(?:Sections?|SECTIONS?|Articles?|ARTICLES?|Sec\.|Clauses?|CLAUSES?|Paragraphs?)\s+[0-9IVXLC]+(?:\.\d+)*|(?:^|\s)\d+(?:\.\d+)+)[.:]?\s*$/;

/** `[________]`, `[＿＿＿]`, `[●]`, `[•]`, `[…]`, `[$____]`, `[__%]`, `[TBD]`, `[XX]`: a blank to fill. */
function isBlank(content: string): boolean {
  if (/^(?:TBD|TBC|TBA|XX+)$/i.test(content)) return true;
  return /^[$€£]?[ _＿●•·….-]*%?$/.test(content) && /_|＿|●|•|·|…|\.\.\./.test(content);
}

/**
 * A blank named by its label (`Purchase Price: $[_____]` → `purchase_price`; its text is the
 * label and the blank, or the blank alone in a table cell), or else by the
 * unit after it (`within [●] days` → `days`), or else by the last word before it that is no
 * filler (`at a price of $[●] per share` → `price`). Its text is then the blank alone: the same
 * blank elsewhere is the same variable, as the text cannot tell them apart.
 */
function blankFinding(text: string, start: number, end: number): Finding | null {
  const label = labelBefore(text, start, Math.max(0, start - 200));
  if (label) {
    return labelledBlank(text, label, start, end);
  }
  const name = definedAfter(text, end) ?? nameAround(text, start, end);
  if (!isPlausibleName(name)) return null;
  return { index: start, name, kind: 'placeholder', text: text.slice(start, end) };
}
