/**
 * The last step of both readers (DOCX and PDF): their lines into the text format of
 * `ExtractedDocument` (domain/contracts/analysis/extracted-document.ts). Both go through the
 * same normalization, so what one format cannot express (a list's automatic number is not in a
 * DOCX's text, a non-breaking space prints as a space) is made alike on both sides rather than
 * guessed on one.
 */

/** Spaces of every width, the no-break ones included, print as a space. */
const WIDE_SPACES = /[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/g;
/**
 * Characters that print as nothing (zero-width space and joiners, BOM, soft hyphen, direction
 * marks and embeddings, which would otherwise hide a placeholder inside a name) and control
 * characters other than tab and line breaks (NUL).
 */
const INVISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u00AD\u200B-\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/g;
/**
 * A run of white space holding a tab, or of four spaces or more (typed to line text up, as a
 * tab does, and as wide in print as the gap the PDF reader takes for one), is a column break;
 * any other run is one space.
 */
const BLANKS = /[ \t\r\n\f\v]+/g;

/**
 * A list item's marker at the start of a line: a bullet (private-use glyphs included: Word's
 * Symbol bullets print as U+F0B7), `1.`, `1)`, `1.2`, `1.2.`, `(a)`, `a)`, `a.`, `(iv)`, `iv.`.
 * Word numbers lists automatically (the number is not in the DOCX's text, only in the PDF
 * printed from it), while a typed number is in both: removed from both, they agree either
 * way. Anchored, every quantifier bounded: linear.
 */
const LIST_MARKER =
  /^(?:[•◦▪▫‣⁃∙·●○■□►▸➢✓\-–—*\uE000-\uF8FF]|\(?(?:\d{1,3}(?:\.\d{1,3}){1,4}\.?|\d{1,3}[.)]|[A-Za-z][.)]|[ivxlcdmIVXLCDM]{1,6}[.)]))[ \t]+/;

/** Whether a line starts with a list item's marker (a bullet or a number, then white space). */
export function startsWithListMarker(line: string): boolean {
  return LIST_MARKER.test(line);
}

/** One line of the text format: spaces collapsed, a leading list marker removed; '' if empty. */
export function normalizeLine(line: string): string {
  const collapsed = line
    .replace(INVISIBLE, '')
    .replace(WIDE_SPACES, ' ')
    .replace(BLANKS, (run) => (run.includes('\t') || run.length >= 4 ? '\t' : ' '));
  const trimmed = trimBlanks(collapsed);
  return trimBlanks(trimmed.replace(LIST_MARKER, ''));
}

/** Spaces and tabs off both ends (a table row's empty first or last cells). */
function trimBlanks(line: string): string {
  let start = 0;
  let end = line.length;
  while (start < end && (line[start] === ' ' || line[start] === '\t')) start += 1;
  while (end > start && (line[end - 1] === ' ' || line[end - 1] === '\t')) end -= 1;
  return line.slice(start, end);
}

/**
 * Lines into the text, stopping once it is longer than `maxChars` (the caller refuses such a
 * document; what was read is never more than one line past the limit).
 */
export function joinLines(lines: Iterable<string>, maxChars: number): string {
  const kept: string[] = [];
  let length = 0;
  for (const raw of lines) {
    const line = normalizeLine(raw);
    if (!line) continue;
    kept.push(line);
    length += line.length + 1;
    if (length > maxChars + 1) break;
  }
  return kept.join('\n');
}
