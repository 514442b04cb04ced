/**
 * A PDF's text items (pdf.js, with their positions) into the lines of the text format: one
 * paragraph a line (wrapped lines joined with a space), a table's row one line with its cells
 * separated by a tab, page numbers and running headers and footers left out.
 *
 * The items are taken in the order the PDF draws them, not sorted by position: Word and
 * LibreOffice draw a document in its own order (a table row by row, each cell's lines in
 * turn), which is the order of the DOCX's text. Positions then tell what separates two items:
 * - the same baseline: a space, or a tab when the gap is wide (a tab stop, the next cell);
 * - the next item drawn higher on the page, or to the right of a line it does not continue:
 *   the next cell of a table row (its first cell's lines are joined back into the row);
 * - the next item lower: inside a row, the same cell when it starts where a cell of the row
 *   starts; otherwise the same paragraph unless the gap is wider than the paragraph's line
 *   spacing, the indentation changes, or the line before ended short (its next word would
 *   have fitted).
 * LibreOffice does not hyphenate by default, so a line ending in `-` keeps its hyphen and is
 * joined without a space ("non-" + "disclosure"), as the DOCX spells it.
 *
 * Every step is linear in the number of items (the retries of a row's first cell merge lines,
 * each at most once); a row remembers at most MAX_COLUMNS cell positions.
 */

import { startsWithListMarker } from './text-format.ts';

/** One text item: `y` is its baseline from the page's bottom (PDF user space), `size` its font size. */
export interface TextItem {
  str: string;
  x: number;
  y: number;
  width: number;
  size: number;
}

interface Line {
  text: string;
  x: number;
  end: number;
  y: number;
  size: number;
  /** Where each tab-separated part of the line starts. */
  columns: number[];
  /** The first word's width (estimated from its item's width), to tell a line that ended short. */
  firstWordWidth: number;
  page: number;
}

/** A gap wider than this many font sizes, on one baseline, separates columns (tab stop, next cell). */
const TAB_GAP = 1.0;
/** Baselines closer than this many font sizes are one line. */
const SAME_BASELINE = 0.35;
/** x positions this close (points) are the same indentation. */
const SAME_X = 2;
const MAX_COLUMNS = 64;

/** Lines of each page, in drawing order (empty and white-space items only separate words). */
function pageLines(items: readonly TextItem[], page: number): Line[] {
  const lines: Line[] = [];
  let line: Line | undefined;
  let spaceBefore = false;
  for (const item of items) {
    if (!item.str.trim()) {
      spaceBefore = item.str.length > 0 || spaceBefore;
      continue;
    }
    const size = item.size > 0 ? item.size : 1;
    const sameLine =
      line &&
      Math.abs(item.y - line.y) <= SAME_BASELINE * Math.max(size, line.size) &&
      item.x >= line.end - 0.5 * size;
    if (line && sameLine) {
      const gap = item.x - line.end;
      if (gap > TAB_GAP * Math.max(size, line.size)) {
        line.text += '\t';
        if (line.columns.length < MAX_COLUMNS) line.columns.push(item.x);
      } else if (spaceBefore || gap > 0.15 * size) {
        line.text += ' ';
      }
      line.text += item.str;
      line.end = Math.max(line.end, item.x + item.width);
      line.size = Math.max(line.size, size);
    } else {
      const first = item.str.trimStart();
      const word = first.split(/\s/, 1)[0]!;
      line = {
        text: item.str,
        x: item.x,
        end: item.x + item.width,
        y: item.y,
        size,
        columns: [item.x],
        firstWordWidth: item.str.length > 0 ? (item.width * word.length) / item.str.length : 0,
        page,
      };
      lines.push(line);
    }
    spaceBefore = /\s$/.test(item.str);
  }
  return lines;
}

/** A page number as printed alone on a line: `3`, `- 3 -`, `Page 3`, `Page 3 of 9`, `3/9`. */
const PAGE_NUMBER = /^[-–—\s]*(?:page\s*)?\d{1,4}(?:\s*(?:of|\/)\s*\d{1,4})?[-–—\s]*$/i;

/** A page's text items and its size. */
export interface PdfPage {
  items: readonly TextItem[];
  width: number;
  height: number;
}

/**
 * Page numbers and running headers and footers out: the top and bottom line of each page when
 * it is a page number, when the same line (digits aside) stands at the top or bottom of
 * another page too, or, in a PDF of one page, when it stands apart at the page's edge (in its
 * outer 7 %, further from the next line than twice its size). A header on one page of several
 * stays: it cannot be told from a title or a last line pushed to the next page.
 */
function withoutRunningLines(pages: Line[][], heights: readonly number[]): Line[][] {
  const onePage = pages.length === 1;
  const edges = pages.map((lines, i) => {
    let top: Line | undefined;
    let bottom: Line | undefined;
    for (const line of lines) {
      if (!top || line.y > top.y) top = line;
      if (!bottom || line.y < bottom.y) bottom = line;
    }
    if (!top || !bottom) return [];
    const height = heights[i]!;
    // The nearest other line below the top one and above the bottom one.
    let belowTop = -Infinity;
    let aboveBottom = Infinity;
    for (const line of lines) {
      if (line !== top && line.y <= top.y) belowTop = Math.max(belowTop, line.y);
      if (line !== bottom && line.y >= bottom.y) aboveBottom = Math.min(aboveBottom, line.y);
    }
    const apart = (line: Line, gap: number) => onePage && gap > 2 * line.size;
    return [
      { line: top, alone: top.y > 0.93 * height && apart(top, top.y - belowTop) },
      { line: bottom, alone: bottom.y < 0.07 * height && apart(bottom, aboveBottom - bottom.y) },
    ];
  });
  const key = (line: Line) => line.text.replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
  const pagesWith = new Map<string, number>();
  for (const lines of edges) {
    for (const k of new Set(lines.map(({ line }) => key(line))))
      pagesWith.set(k, (pagesWith.get(k) ?? 0) + 1);
  }
  return pages.map((lines, i) => {
    const drop = new Set(
      edges[i]!.filter(
        ({ line, alone }) => alone || PAGE_NUMBER.test(line.text) || (pagesWith.get(key(line)) ?? 0) >= 2,
      ).map(({ line }) => line),
    );
    return drop.size ? lines.filter((line) => !drop.has(line)) : lines;
  });
}

interface OutputLine {
  text: string;
  /** Where its first line starts; its first and last physical lines. */
  x: number;
  first: Line;
  last: Line;
  lineCount: number;
  /** The line spacing of its paragraph, once it has two lines. */
  spacing?: number;
  /** Set while it is a table row (or a line with tab-separated columns). */
  row?: { startX: number; columns: number[] };
}

/** The text's lines, from each page's items in drawing order. */
export function pdfLines(pages: readonly PdfPage[]): string[] {
  const perPage = withoutRunningLines(
    pages.map(({ items }, page) => pageLines(items, page)),
    pages.map(({ height }) => height),
  );
  const rightEdge = perPage.map((lines, i) => textRightEdge(lines, pages[i]!.width));
  const out: OutputLine[] = [];
  for (const lines of perPage) {
    for (const line of lines) {
      const current = out.at(-1);
      if (!current) {
        out.push(start(line));
        continue;
      }
      const previous = current.last;
      const samePage = previous.page === line.page;
      // Drawn higher and further right: the next cell (a footer drawn before the body, higher
      // too, starts at the margin, as the body does).
      const higher =
        samePage && line.y > previous.y + SAME_BASELINE * line.size && line.x > previous.x + SAME_X;
      if (higher) {
        // The next cell of a row: its first cell may have been read as lines of its own.
        nextCell(out, line);
      } else if (current.row) {
        const inCell =
          line.x > current.row.startX + SAME_X &&
          current.row.columns.some((x) => Math.abs(x - line.x) <= SAME_X);
        if (inCell) append(current, line, joiner(previous.text, line.text));
        else out.push(start(line));
      } else if (continuesParagraph(current, line, rightEdge[previous.page]!)) {
        append(current, line, joiner(previous.text, line.text));
      } else {
        out.push(start(line));
      }
    }
  }
  return out.map((line) => line.text);
}

/**
 * Where a full line of the page ends: the end of its longest line. On a page of a few lines
 * that may be a short one, so there the edge is taken at least as far from the right side of
 * the page as the leftmost line is from its left side (margins are most often alike).
 */
function textRightEdge(lines: readonly Line[], pageWidth: number): number {
  let end = 0;
  let left = pageWidth;
  for (const line of lines) {
    end = Math.max(end, line.end);
    left = Math.min(left, line.x);
  }
  return lines.length >= 8 ? end : Math.max(end, pageWidth - left);
}

function start(line: Line): OutputLine {
  const output: OutputLine = { text: line.text, x: line.x, first: line, last: line, lineCount: 1 };
  if (line.columns.length > 1) output.row = { startX: line.x, columns: [...line.columns] };
  return output;
}

function append(output: OutputLine, line: Line, separator: string) {
  const previous = output.last;
  if (!output.row && previous.page === line.page) {
    output.spacing ??= previous.y - line.y;
  }
  output.text += separator + line.text;
  output.last = line;
  output.lineCount += 1;
  if (line.columns.length > 1) {
    output.row ??= { startX: output.x, columns: [output.x] };
    for (const x of line.columns) addColumn(output.row, x);
  }
}

function addColumn(row: { columns: number[] }, x: number) {
  if (row.columns.length < MAX_COLUMNS && !row.columns.some((c) => Math.abs(c - x) <= SAME_X)) {
    row.columns.push(x);
  }
}

/**
 * `line` starts the next cell of the row the last output line belongs to. When that line is
 * not a row yet, it is the row's first cell: the lines just above it that start at its x
 * (a cell's paragraphs, read as paragraphs of their own) are joined into it first.
 */
function nextCell(out: OutputLine[], line: Line) {
  let current = out.at(-1)!;
  if (!current.row) {
    while (out.length >= 2) {
      const before = out.at(-2)!;
      const size = Math.max(before.last.size, current.last.size);
      // The same cell: just above and at the same x; or, wherever it starts, no higher than
      // the new cell's first line (cells' first lines line up, or nearly when centered).
      const sameCell =
        Math.abs(before.x - current.x) <= SAME_X && before.last.y - current.first.y <= 1.25 * size;
      const sameRow = before.first.y <= line.y + size && before.x < line.x;
      if (before.row || before.last.page !== current.last.page || !(sameCell || sameRow)) break;
      before.text += joiner(before.last.text, current.text) + current.text;
      before.last = current.last;
      before.lineCount += current.lineCount;
      out.pop();
      current = before;
    }
    current.row = { startX: current.x, columns: [current.x] };
  }
  current.text += `\t${line.text}`;
  current.last = line;
  current.lineCount += 1;
  for (const x of line.columns) addColumn(current.row!, x);
}

/**
 * Whether `line` goes on with the paragraph of `current` (both outside a table row): close
 * below it (no wider than the paragraph's line spacing so far), at its indentation (or under
 * an indented first line), and the line before did not end short.
 */
function continuesParagraph(current: OutputLine, line: Line, rightEdge: number): boolean {
  const previous = current.last;
  const size = Math.max(previous.size, line.size);
  if (previous.page === line.page) {
    const gap = previous.y - line.y;
    if (gap > 2.2 * size) return false;
    if (current.spacing !== undefined && gap > 1.3 * current.spacing + 0.5) return false;
  }
  const sameX = Math.abs(line.x - previous.x) <= SAME_X;
  const firstLine = current.lineCount === 1;
  const listItem = firstLine && startsWithListMarker(previous.text);
  // A first line indented (by at most an inch) more than the lines under it; or a list item's
  // first line, its marker hanging left of the lines under it (by at most an inch).
  const underIndentedFirst = firstLine && !listItem && line.x < previous.x && previous.x - line.x <= 72;
  const underListMarker = listItem && line.x > previous.x && line.x - previous.x <= 72;
  if (!sameX && !underIndentedFirst && !underListMarker) return false;
  if (headingAfterSentence(previous, line, rightEdge)) return false;
  // A question or a lead-in that ends its paragraph with a colon after a word in lower case or a
  // parenthesis ("… the following categories of data subjects:", "… (please specify):"), then a
  // line that starts with a capital: the answer or the list is a paragraph of its own, however far
  // the question ran. A label's colon ("Title:" at a printed line's end) keeps its value after it.
  if (/(?:^|\s)\p{Ll}\S*:$|\):$/u.test(previous.text) && /^\p{Lu}/u.test(line.text)) return false;
  // Ended short: a space and the next line's first word would have fitted before the edge, by
  // more than half an em (the edge is the page's longest line, which may hang past the margin).
  return previous.end + 0.25 * size + line.firstWordWidth > rightEdge - 0.5 * size;
}

/**
 * A heading in capitals under a finished sentence (`… security policies.` / `BACKGROUND`): a
 * paragraph of its own, however far the sentence ran. Word and LibreOffice print a heading as a
 * short line of its own, with no full stop; a paragraph in capitals may go on after a full stop
 * to a short last line, but that line ends as a sentence does (`… OF ANY KIND.` / `ALL RISK IS
 * THE LICENSEE'S.`), so a short line wholly in capitals after a full stop, not ending as a
 * sentence, is a new paragraph.
 */
function headingAfterSentence(previous: Line, line: Line, rightEdge: number): boolean {
  return (
    /[.!?]["”)]?$/.test(previous.text) &&
    !/[.!?:;,]["”)]?$/.test(line.text) &&
    !/\p{Ll}/u.test(line.text) &&
    /\p{Lu}.*\p{Lu}/u.test(line.text) &&
    line.end < rightEdge - 4 * line.size
  );
}

/**
 * What joins two lines of one paragraph or cell: a space, but nothing after a hyphen (no
 * hyphenation: the hyphen is the text's, "non-" + "disclosure") nor inside a token too long
 * for its line, which LibreOffice and Word break anywhere ("{party_title_di" + "splay}"): a
 * line of one token that opens a bracket it does not close, or (no bracket) holds `_`, `@` or `/`.
 */
function joiner(before: string, after: string): string {
  if (/\p{L}-$/u.test(before) && /^\p{L}/u.test(after)) return '';
  if (!/\s/.test(before) && before.length >= 8 && /^[\w}\]>»)@./-]/.test(after) && brokenToken(before)) {
    return '';
  }
  return ' ';
}

function brokenToken(token: string): boolean {
  const open = '{[<«('.indexOf(token[0]!);
  if (open >= 0) return !token.includes('}])>»'[open]!);
  return /[_@/]/.test(token);
}
