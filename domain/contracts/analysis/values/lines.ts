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
