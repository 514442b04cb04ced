/** A piece of the document's text and where it stands in it. */
export interface Span {
  text: string;
  index: number;
}

/** `span` without its leading and trailing white space (and its index moved accordingly). */
export function trimSpan(span: Span): Span {
  const start = span.text.length - span.text.trimStart().length;
  const text = span.text.trim();
  return { text, index: span.index + start };
}

/** The part of `span` from `start` to `end` (offsets inside `span.text`), trimmed. */
export function subSpan(span: Span, start: number, end = span.text.length): Span {
  return trimSpan({ text: span.text.slice(start, end), index: span.index + start });
}

/**
 * The text's lines (paragraphs, and table rows with their cells separated by tabs), up to
 * `maxChars` characters in all: a line that would pass the budget is left out, and the rest
 * with it. The text format puts one paragraph on a line (../extracted-document.ts).
 */
export function linesOf(text: string, maxChars: number): Span[] {
  const lines: Span[] = [];
  let index = 0;
  while (index < text.length && index < maxChars) {
    let end = text.indexOf('\n', index);
    if (end < 0) end = text.length;
    if (end > maxChars) break;
    const line = trimSpan({ text: text.slice(index, end), index });
    if (line.text) lines.push(line);
    index = end + 1;
  }
  return lines;
}

/** A table row's cells (trimmed; empty ones kept, so that columns line up). */
export function cellsOf(line: Span): Span[] {
  const cells: Span[] = [];
  let start = 0;
  for (;;) {
    const tab = line.text.indexOf('\t', start);
    const end = tab < 0 ? line.text.length : tab;
    cells.push(subSpan(line, start, end));
    if (tab < 0) return cells;
    start = tab + 1;
  }
}

/**
 * A table row's cells with the blank ones at its ends, which `linesOf` trims off with the line's
 * white space ("Al Roe\t2 Elm Street\t" is three cells, the last blank). Only the white space
 * between the line and the line breaks around it is read.
 */
export function rowCells(text: string, line: Span): Span[] {
  let lead = 0;
  for (let at = line.index - 1; at >= 0 && text[at] !== '\n'; at -= 1) if (text[at] === '\t') lead += 1;
  let trail = 0;
  const end = line.index + line.text.length;
  for (let at = end; at < text.length && text[at] !== '\n'; at += 1) if (text[at] === '\t') trail += 1;
  const blanks = (count: number, index: number): Span[] =>
    Array.from({ length: count }, () => ({ text: '', index }));
  return [...blanks(lead, line.index), ...cellsOf(line), ...blanks(trail, end)];
}

/** Words a sentence does not end on: a line ending with one runs on. */
const RUN_ON_WORDS = new Set(
  'a an and or of the to by between among in at with for on as under from its this that such said than'.split(
    ' ',
  ),
);

/**
 * `lines[i]` with the line after it, as one span, where a sentence runs on across the break:
 * filings kept as plain text are hard-wrapped (EDGAR's text exhibits at about 70 columns), and
 * a PDF's layout may break a paragraph, so "construed according to the" / "laws of the State of
 * Oregon." and "DigiPath," / "Inc., located at …" stand on two lines. It runs on when the line
 * ends with a comma or a word no sentence ends on, or the next line starts in lower case (or
 * with "OF", in capitals: "THE STATE" / "OF TEXAS"); the
 * next line must follow right after it (one line break, read as a space: offsets stay the
 * text's). At most `MAX_RUN_ON` characters of the next line are taken. Else `lines[i]` itself.
 */
export function withNextLine(lines: readonly Span[], i: number): Span {
  const line = lines[i]!;
  const next = lines[i + 1];
  if (!next || next.index !== line.index + line.text.length + 1) return line;
  const lastWord = line.text.slice(line.text.lastIndexOf(' ') + 1);
  const runsOn =
    lastWord.endsWith(',') || RUN_ON_WORDS.has(lastWord.toLowerCase()) || /^(?:\p{Ll}|OF\s)/u.test(next.text);
  if (!runsOn || /[.;:!?]$/.test(line.text)) return line;
  return { text: `${line.text} ${next.text.slice(0, MAX_RUN_ON)}`, index: line.index };
}

const MAX_RUN_ON = 300;
