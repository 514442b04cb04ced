/**
 * Labels as forms print them (a label line's, a key-terms cell's), and table rows: a label row
 * (`Title of Contractor Employee\tVice President`), a header row naming its columns (`Full Legal
 * Name\tResidential Address\tEmail Address`), two proper names side by side (a cover page's), and a
 * clause set out in a cell.
 */
import { cellsOf, type Span } from './lines.ts';
import { nameAt } from './names.ts';
import { titledSignatories } from './signatories.ts';

const LABEL = /^\p{Lu}[\p{L}\p{N}'’()&/ .,#-]{0,48}$/u;
/**
 * A label: a few capitalised words. A key-terms table's label cell may name its term at length
 * ("Total Post-Money Shares Reserved for Option Pool"): a table sets the label apart, so it may
 * take up to eight words, its 49 characters still.
 */
export function isLabel(text: string, maxWords = 6): boolean {
  const label = text.replace(/:$/, '').trim();
  if (!LABEL.test(label) || label.endsWith('.') || label.endsWith(',')) return false;
  const words = label.split(' ').length;
  return words <= maxWords;
}
const TABLE_LABEL_WORDS = 8;

/**
 * A label line's label may describe its field at length, as forms do ("Name of the organisation
 * exporting the data:", "Activities relevant to the data transferred under these Clauses:"): up to
 * ten words and 80 characters when most of its words are in lower case. Capitalised words run
 * together past six are names set side by side ("Town of Vinton Roanoke Gas Company Attention:",
 * two notice blocks printed as one line).
 */
const LINE_LABEL_WORDS = 6;
const DESCRIBED_LABEL_WORDS = 10;
export const DESCRIBED_LABEL_CHARS = 80;
const DESCRIBED_LABEL = /^\p{Lu}[\p{L}\p{N}'’()&/ .,-]*$/u;
export function isLineLabel(text: string): boolean {
  if (text.length <= 50 && isLabel(text, LINE_LABEL_WORDS)) return true;
  const label = text.trim();
  const words = label.split(' ');
  const lower = words.filter((word) => /^\p{Ll}/u.test(word)).length;
  return (
    label.length <= DESCRIBED_LABEL_CHARS &&
    words.length <= DESCRIBED_LABEL_WORDS &&
    DESCRIBED_LABEL.test(label) &&
    !/[.,]$/.test(label) &&
    lower * 2 >= words.length
  );
}

/**
 * A sentence of the contract, not a line of a signature block: many words, many of them in lower
 * case ("By: /s/ JANE DOE By: /s/ JOHN ROE Title: CEO Title: CFO" is long but a block's line).
 */
export function isClause(text: string): boolean {
  const words = text.split(' ');
  return words.length > 12 && words.filter((w) => /^[a-z]/.test(w)).length >= 6;
}

/** "Name and office side by side" ("Jane Roe, Chief Executive Officer"), not a label. */
const nameAndOffice = (cell: Span) => !cell.text.includes(':') && titledSignatories(cell, null).length > 0;

/** What marks a proper name: its acronym in parentheses, an abbreviation ("U.S."), a legal form. */
const PROPER_MARK =
  / \([A-Z][A-Za-z0-9&.-]{1,9}\)$|\b(?:[A-Z]\.){2,}|,? (?:Inc|LLC|Ltd|Corp|GmbH|SAS|S\.A|B\.V|PBC|plc|inc)\.?$/;
/** A name a cell holds whole: "U.S. Small Business Administration", "Permit Intake Portal (PIP)". */
export function wholeName(text: string): { entity: boolean } | null {
  if (text.length > 80) return null;
  // A name may be followed by its acronym, the short name it goes by ("Permit Intake Portal (PIP)").
  const bare = text.replace(/ \([A-Z][A-Za-z0-9&.-]{1,9}\)$/, '').replace(/^The /, '');
  const name = nameAt(bare);
  return name && name.start === 0 && name.text === bare && name.words >= 2 ? { entity: name.entity } : null;
}

/**
 * Two proper names side by side ("Permit Intake Portal (PIP)\tIdentity Verification Gateway (IVG)"),
 * not a label and its value: one at least marked as a name (its acronym, an abbreviation, a legal
 * form), and neither a label's kind of value ("Sponsor Name\tAcme Corp.").
 */
function isNameRow(cells: readonly Span[]): boolean {
  return (
    cells.every((cell) => wholeName(cell.text) !== null && !COLUMN_KIND.test(cell.text)) &&
    cells.some((cell) => PROPER_MARK.test(cell.text))
  );
}

/**
 * Whether a line is a table row of a label and its value (`Title of Contractor Employee\tVice
 * President`): its label is read as a label, never as a signatory's name beside an office.
 */
export function isLabelRow(line: Span): boolean {
  const cells = cellsOf(line);
  return (
    cells.length === 2 &&
    isLabel(cells[0]!.text, TABLE_LABEL_WORDS) &&
    !nameAndOffice(cells[0]!) &&
    !isNameRow(cells)
  );
}

/**
 * The kinds of value a column heading names, as its last word: a table whose header row says what
 * its columns hold (`Full Legal Name\tResidential Address\tEmail Address`, `Party\tSignature\tDate`)
 * is a list of entries, each body cell a value of its column's kind.
 */
const COLUMN_KIND =
  /\b(?:name|names|address|e-?mail|phone|telephone|party|parties|organi[sz]ation|member|country|city|role|amount|fee|fees|shares|percentage|holder|owner|signatory|signer|signature|date|title|position|number)$/i;
/** The captions printed under a signature rule ("Signature\tDate"), no table's header. */
const CAPTION_ONLY = /^(?:signature|date|signed|initials)$/i;

/**
 * A table's header row: two cells or more, each a heading of at most four words without a figure
 * or a colon that ends with a kind of value (`COLUMN_KIND`), and not only a signature rule's
 * captions; "Term\tValue" heads a key-terms table of label rows, and "Name of Employee\tJane Roe"
 * is one label row.
 */
export function isHeaderRow(cells: readonly Span[]): boolean {
  const filled = cells.filter((cell) => cell.text);
  return (
    filled.length >= 2 &&
    filled.every(
      (cell) => isLabel(cell.text, 4) && !/[\d:]/.test(cell.text) && COLUMN_KIND.test(cell.text),
    ) &&
    !filled.every((cell) => CAPTION_ONLY.test(cell.text))
  );
}
