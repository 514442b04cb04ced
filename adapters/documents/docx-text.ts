import type { OfficeContentNode } from 'officeparser';

/**
 * A DOCX's lines, from officeparser's AST: one paragraph a line (a line break inside it ends
 * the line, as it does in the printed page), a table's row one line with its cells separated
 * by a tab and a cell's paragraphs joined by a space, empty cells left out (a PDF shows
 * nothing for them); a row with a single cell of text is read as paragraphs. Fields are their shown result (officeparser's reading of `w:fldSimple`
 * and `w:fldChar`), content controls their content. Headers, footers, footnotes and comments
 * are not in `content`, so they are left out, as the PDF reader leaves out what repeats at the
 * top and bottom of its pages. The lines are normalized by `joinLines` (text-format.ts).
 */
export function* docxLines(content: readonly OfficeContentNode[]): Generator<string> {
  for (const node of content) {
    if (node.type === 'table') {
      for (const row of node.children ?? []) {
        if (row.type !== 'row') continue;
        const cells = (row.children ?? []).map((cell) => cellLines(cell)).filter((lines) => lines.length);
        // A row with one cell of text (a framed box, a one-column table) prints as paragraphs.
        if (cells.length === 1) yield* cells[0]!;
        else yield cells.map((lines) => lines.join(' ')).join('\t');
      }
    } else if (BLOCKS.has(node.type)) {
      yield* blockText(node).split('\n');
    } else if (node.children?.some((child) => child.type !== 'text')) {
      yield* docxLines(node.children);
    } else if (node.text) {
      yield* node.text.split('\n');
    }
  }
}

const BLOCKS = new Set(['paragraph', 'heading', 'list']);

/**
 * A paragraph's text with its line breaks (`w:br`), which officeparser's `text` leaves out:
 * a line broken by hand is two lines in print.
 */
function blockText(node: OfficeContentNode): string {
  const children = node.children ?? [];
  if (!children.some((child) => child.type === 'break')) return node.text ?? '';
  return children.map((child) => (child.type === 'break' ? '\n' : (child.text ?? ''))).join('');
}

/** A cell's lines (its paragraphs, and the rows of a table inside it), empty ones left out. */
function cellLines(cell: OfficeContentNode): string[] {
  const lines: string[] = [];
  for (const line of docxLines(cell.children ?? [])) {
    const trimmed = line.trim();
    if (trimmed) lines.push(trimmed);
  }
  return lines;
}
