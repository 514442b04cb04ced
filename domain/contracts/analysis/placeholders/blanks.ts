import type { Finding } from '../findings.ts';
import { descriptionName, isPlausibleName, nameAround, toSnakeCase } from './names.ts';

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

/**
 * A form explains a blank that no label names by an instruction in parentheses right after it
 * ("________ (insert Contractor Company name)", "____ (print name)", "____ (name of the
 * employer)"): the blank and its instruction are the placeholder, named by what it asks for.
 */
const INSTRUCTION_AFTER =
  /^ ?\(((?:please )?(?:insert|enter|specify|fill in|print|type|write|state|indicate|name of)\b[^()\n]{0,100})\)/i;
const MAX_INSTRUCTION = 140;

/** Where a signature goes (`By: ______`): signed by hand, never filled in from data. */
const SIGNATURE_LABEL = /^(?:by|signature|signed|sign here|initials?|witness)$/i;

export interface Label {
  /** Where the label starts. */
  index: number;
  name: string;
  /** Whether the blank is a table cell of its own (a tab between label and blank). */
  ownCell: boolean;
}

/**
 * A blank named by its label: its text runs from the label to the blank's end, or is the blank
 * alone when the blank is a table cell of its own.
 */
export function labelledBlank(text: string, label: Label, blank: number, end: number): Finding {
  const from = label.ownCell ? blank : label.index;
  return { index: from, name: label.name, kind: 'placeholder', text: text.slice(from, end) };
}

export function scanUnderscoreBlanks(text: string): Finding[] {
  const found: Finding[] = [];
  let floor = 0;
  // Underscores, or their full-width form (East Asian fonts and forms).
  for (const run of text.matchAll(/[_＿]{3,}/g)) {
    const underscores = run.index;
    const end = underscores + run[0].length;
    // A blank inside brackets (`[____]`) or corner marks (`⎣____⎦`) is the bracket or corner scan's.
    if (
      text[underscores - 1] === '[' ||
      CORNER_OPEN.has(text[underscores - 1]!) ||
      (text[underscores - 1] === '$' && text[underscores - 2] === '[')
    ) {
      floor = end;
      continue;
    }
    const start = text[underscores - 1] === '$' ? underscores - 1 : underscores;
    const label = labelBefore(text, start, floor);
    const defined = label ? null : definedAfter(text, end);
    if (label) found.push(labelledBlank(text, label, start, end));
    else if (defined) {
      // "between ____________ ("You")": the definition after a party's blank names it.
      found.push({ index: start, name: defined, kind: 'placeholder', text: text.slice(start, end) });
    } else {
      // "________ (insert Contractor Company name)": the instruction after the blank names it.
      const instruction = INSTRUCTION_AFTER.exec(text.slice(end, end + MAX_INSTRUCTION));
      const name = instruction ? descriptionName(instruction[1]!) : '';
      if (instruction && isPlausibleName(name)) {
        const to = end + instruction[0].length;
        found.push({ index: start, name, kind: 'placeholder', text: text.slice(start, to) });
        floor = to;
        continue;
      }
    }
    floor = end;
  }
  return found;
}

/**
 * Blanks shaped like what they ask for, as printed forms draw them: a date (`____ day of
 * __________, 20__`, `__/__/____`, `___/___/20__`) and a phone number (`(___) ___-____`). A form
 * prints the date's or the number's own words and separators between the rules, so no run of
 * underscores alone is the blank; each shape is one placeholder, named by its label
 * (`Phone: (___) ___-____` → `phone`) or else by what it is (`date`, `phone`). No shape starts
 * inside a run of underscores, and a run is never split two ways: the month's rule and the year's
 * are set apart by a comma, a space or the century's digits, or are one run (`day of _______`),
 * so a long run that fails is read once, not once per place it could be cut (quadratic).
 */
const SHAPED_BLANK =
  /(?<![_＿\w])(?:(?<day>[_＿]{2,} day of (?:[_＿]{3,}(?:,? ?(?:19|20)[_＿]{2}|(?:, ?| )[_＿]{2,})|[_＿]{5,}))|(?<numeric>[_＿]{2,4}\/[_＿]{2,4}\/(?:(?:19|20)[_＿]{2}|[_＿]{2,4}))|(?<phone>\([_＿]{3}\) ?[_＿]{3}[-.][_＿]{4}))(?![_＿\w])/g;

export function scanShapedBlanks(text: string): Finding[] {
  const found: Finding[] = [];
  for (const m of text.matchAll(SHAPED_BLANK)) {
    const what = m.groups!.phone ? 'phone' : 'date';
    const end = m.index + m[0].length;
    const label = labelBefore(text, m.index, Math.max(0, m.index - MAX_LABEL));
    // A label names it when it says what it is ("Date of Birth", "Telephone"): "Dated this" is wording.
    if (label?.name.includes(what === 'phone' ? 'phone' : 'date') && label.name !== 'dated') {
      found.push(labelledBlank(text, label, m.index, end));
    } else found.push({ index: m.index, name: what, kind: 'placeholder', text: m[0] });
  }
  return found;
}

/**
 * Blanks drawn with an ellipsis or a row of dots, as continental European forms and the EU's
 * published forms draw them (`Functie: …`, `Nom : ..........`, a line that is only `…` under a
 * label ending its line with a colon): named by that label. An ellipsis in running text
 * ("the parties …", "Note: … the rest") and a table of contents' dot leaders (which end at a page
 * number) are left alone; a signature's dots (`Signature: ……`) are signed by hand.
 */
export function scanDottedBlanks(text: string): Finding[] {
  const found: Finding[] = [];
  let floor = 0;
  // The line the run stands in, moved forward as the runs are: each character is passed once.
  let lineStart = 0;
  let lineEnd = lineEndAt(text, 0);
  for (const run of text.matchAll(/…+|\.{5,}/g)) {
    const start = run.index;
    const end = start + run[0].length;
    while (start > lineEnd) {
      lineStart = lineEnd + 1;
      lineEnd = lineEndAt(text, lineStart);
    }
    const label = labelBefore(text, start, Math.max(floor, lineStart));
    floor = end;
    // A table of contents' dot leaders run to a page number ("Definitions: ........ 1"), and one
    // ellipsis before a sentence's words leaves words out of it ("Note: … the rest is omitted"); a
    // blank ends its line, stands before the next label ("Tel.: …; fax …") or its unit ("…… EUR").
    const after = text.slice(end, Math.min(lineEnd, end + MAX_AFTER_RUN));
    if (lineEnd - end <= MAX_AFTER_RUN && PAGE_NUMBER.test(after)) continue;
    if (run[0] === '…' && SENTENCE_AFTER.test(after)) continue;
    if (label) {
      found.push(labelledBlank(text, label, start, end));
      continue;
    }
    // A line that is the run alone, under a label ending the line above ("Andere gegevens ter
    // identificatie van de organisatie:" / "…"), of at most MAX_LINE_LABEL characters.
    const alone =
      lineEnd - lineStart <= run[0].length + 4 && text.slice(lineStart, lineEnd).trim() === run[0];
    if (!alone || lineStart === 0) continue;
    const window = text.slice(Math.max(0, lineStart - 1 - MAX_LINE_LABEL), lineStart - 1);
    const cut = window.lastIndexOf('\n');
    if (cut < 0 && lineStart - 1 > MAX_LINE_LABEL) continue;
    const above = window.slice(cut + 1).trim();
    const name = above.endsWith(':') ? toSnakeCase(above.slice(0, -1)) : '';
    if (/^\p{Lu}/u.test(above) && isPlausibleName(name) && !SIGNATURE_LABEL.test(above.slice(0, -1)))
      found.push({ index: start, name, kind: 'placeholder', text: run[0] });
  }
  return found;
}

/** How far after a run of dots or an ellipsis is read for what follows it. */
const MAX_AFTER_RUN = 40;
const PAGE_NUMBER = /^[ \t]*(?:\d{1,4}|[ivxlc]{1,7})[ \t]*$/i;
/** Two words in lower case, the second no label (no colon after it): a sentence going on. */
const SENTENCE_AFTER = /^ \p{Ll}[\p{L}'’-]* \p{Ll}[\p{L}'’-]*(?![\p{L}'’-]| ?:)/u;

/** How long the label on a line of its own, over a blank's line, may be. */
const MAX_LINE_LABEL = 120;

function lineEndAt(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end < 0 ? text.length : end;
}

/** A defined term right after a blank: ` (the "Company")`, ` (hereinafter "Buyer")`. */
const DEFINED_AFTER = /^,? \((?:the |hereinafter |hereinafter the )?["“]([\p{L}][\p{L} ]{0,38})["”]\)/u;
/** A term that defines a date, a sum or a place, not a party: its blank is the term itself. */
const NOT_A_PARTY_TERM = /(?:^|\s)(?:date|term|period|fee|fees|price|amount|address)$/i;

/**
 * The name a definition right after a blank gives it: `[●] (the "Company")` → `company_name`,
 * `____________ ("You")` → `you_name`, `____ (the "Effective Date")` → `effective_date`; or null.
 * Contracts define each party, and a date or a sum, right after the words that name it.
 */
export function definedAfter(text: string, end: number): string | null {
  const defined = DEFINED_AFTER.exec(text.slice(end, end + 60));
  if (!defined) return null;
  const term = toSnakeCase(defined[1]!);
  const name = NOT_A_PARTY_TERM.test(defined[1]!) ? term : `${term}_name`;
  return isPlausibleName(name) ? name : null;
}

const SIGNATURE_BEFORE = /(?:^|\s)(?:by|signature|signed|sign here|initials?|witness)$/i;
/** `text` without the spaces, tabs and colon at its end (a loop: a pattern for it is quadratic). */
function withoutColon(text: string): string {
  let end = text.length;
  while (end > 0 && (text[end - 1] === ' ' || text[end - 1] === '\t' || text[end - 1] === ':')) end -= 1;
  return text.slice(0, end);
}

/** The lower left corner of a write-in box: `⎣` (U+23A3), `⌊` (U+230A). */
const CORNER_OPEN = new Set(['⎣', '⌊']);

/**
 * Write-in boxes drawn with corner marks: `⎣______⎦`, `⎣ ⎦`, and a box left open at its right,
 * `⎣__` or a lone `⎣` (the lower left corner, where the writing starts), `⌊ ⌋` alike. Printed
 * forms mark the field a person writes in by its corners (paper forms read by machine, such as
 * the IRS's, frame every entry so), and forms kept as text draw them with the bracket-corner
 * glyphs (the Commonhaus Foundation's agreements: `Effective Date: ⎣ ⎦`, `Name: ⎣___⎦`). A
 * contract's wording never uses these glyphs, so each box is a blank whatever it holds of spaces
 * and underscores: named by its label when it has one (`Title: ⎣___⎦`, the label and the box,
 * as labelled underscores are), else the box alone, named by the words around it.
 *
 * Linear: one pass of a pattern with a single repetition, and a label read over at most
 * MAX_LABEL characters after the previous box.
 */
export function scanCornerBlanks(text: string): Finding[] {
  const found: Finding[] = [];
  let floor = 0;
  for (const box of text.matchAll(/[⎣⌊][ _＿]*[⎦⌋]?/g)) {
    const start = box.index;
    // A box left open at its right ends at its last underscore, not at the spaces after it.
    const end = start + box[0].trimEnd().length;
    const dollar = text[start - 1] === '$' ? start - 1 : start;
    const label = labelBefore(text, dollar, floor);
    const lineBefore = text.slice(Math.max(floor, dollar - MAX_LABEL), dollar);
    floor = end;
    // `Signature: ⎣____⎦`, `By: ⎣`: signed by hand, as a signature line of underscores is.
    if (!label && SIGNATURE_BEFORE.test(withoutColon(lineBefore))) continue;
    if (label) {
      found.push(labelledBlank(text, label, dollar, end));
      continue;
    }
    const name = nameAround(text, start, end);
    found.push({
      index: start,
      name: isPlausibleName(name) ? name : 'blank',
      kind: 'placeholder',
      text: text.slice(start, end),
    });
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
    if (!/[A-Z]/.test(text[start]!)) continue;
    if (
      !followsBoundary(text, start) &&
      !(text[start - 1] === ' ' && FIELD_BESIDE.test(text.slice(start, labelEnd)))
    )
      continue;
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
 * A signature block's field laid beside the one before it on the same line: `Please sign: /s/
 * Jane Roe Date: ________` (a signature line puts its date, name and title side by side: the
 * one before may be filled already, so no boundary is left to start the label at).
 */
const FIELD_BESIDE = /^(?:Date|Name|Title|Print(?:ed)? Name)$/;

/**
 * Whether `start` follows the text's start, a line break or tab, or `:`, `.` (not an initial's),
 * `;`, `_` or `]` and a space (the last two end a previous blank, which may lie before the floor).
 */
function followsBoundary(text: string, start: number): boolean {
  if (start === 0) return true;
  const before = text[start - 1]!;
  if (before === '\n' || before === '\t') return true;
  if (before !== ' ' || start < 2 || !/[:.;_＿\]]/.test(text[start - 2]!)) return false;
  // An initial's full stop ends no sentence: "David O. Mensah Date: ____" has no label "Mensah Date".
  return !(text[start - 2] === '.' && /(?:^|\s)\p{Lu}$/u.test(text.slice(Math.max(0, start - 4), start - 2)));
}
