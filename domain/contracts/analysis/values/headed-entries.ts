/**
 * The entries of a form laid out as headings, each over the few lines written in for it: an
 * interconnection MOU's `BACKGROUND` / `The two systems exchange applicant records nightly …`, a
 * schedule's `SERVICES` / `Organise the community workshop …`. A form that asks for a description
 * under each heading leaves one short entry under each of several headings in a row (NIST SP
 * 800-47's MOU template, a fiscal sponsor's schedules); a contract's headings stand over its
 * clauses, and a short one among long ones is a clause too. So entries are read only in a run of
 * at least `MIN_RUN` short sections, and then only those written in plain words: a sentence
 * drafted in a contract's language of obligation ("shall", "must", "may", "warrants") is the
 * form's own clause, and a line holding a date, an amount or an address is read for that value
 * (docs/decisions/087-entries-under-headings.md).
 * One pass over the lines, patterns of bounded repetition: linear in the text.
 */
import { toSnakeCase } from '../placeholders.ts';
import type { Candidate } from './candidate.ts';
import { NOT_AN_ENTRY } from './forms.ts';
import type { Span } from './lines.ts';
import { typedValues } from './typed.ts';

/** A heading on a line of its own, in capitals: `BACKGROUND`, `- MAIN CONTRACT`, `2.0 TIMELINE`. */
const CAPS_HEADING = /^(?:[-–•] |\d{1,2}(?:\.\d{1,2})*\.? |[A-Z]\. )?(\p{Lu}[\p{Lu}\p{N}'’&/, -]{2,60})$/u;
/** How many lines a short section takes at most, and how long each. */
const MAX_ENTRY_LINES = 4;
const MAX_ENTRY_CHARS = 250;
/**
 * A contract's own clause, the form's wording, not an entry: drafted in the language contracts use
 * for obligations, discretion and declarations (Adams, A Manual of Style for Contract Drafting,
 * ch. 3: "shall", "must", "may", "will" after a capitalised word, most often a party's defined
 * term, "Acme will provide …", and "represents", "warrants", "agrees", "acknowledges"), or naming
 * the contract as it defines itself, "this Agreement".
 */
const CLAUSE_LANGUAGE =
  /\b(?:shall|SHALL|Shall|must|may|agrees?|warrants?|represents?|acknowledges?|undertakes?|covenants?)\b|\b(?:this|This|THIS) (?:Agreement|AGREEMENT)\b|\b\p{Lu}\p{Ll}+ will\b/u;
/** An entry's line: a capital, then two words at least. */
const FREE_TEXT = /^\p{Lu}\S* \S/u;
/**
 * Not an entry: a blank's rule, a conformed signature, a list's lead-in or its item's run-on, a
 * table of contents' line (a heading's title, then its page number or dot leaders).
 */
const NO_FREE_TEXT = /___|\/s\/| > |[:;,]$|\b(?:and|or)[,;]?$|\s\d{1,4}$|\.{4}|…/;

interface Section {
  heading: string;
  lines: readonly Span[];
  /** Whether it could be one entry: a few lines, none long, no table row. */
  short: boolean;
}

/**
 * The sections between one capital heading and the next (the last one has no end: not read). A
 * heading right over another (a part's title over its first section's) heads no section.
 */
function sectionsOf(lines: readonly Span[]): Section[] {
  const sections: Section[] = [];
  let open: { at: number; heading: string } | null = null;
  for (let i = 0; i < lines.length; i += 1) {
    const m = CAPS_HEADING.exec(lines[i]!.text);
    if (!m) continue;
    if (open && i > open.at + 1) {
      const body = lines.slice(open.at + 1, i);
      sections.push({ heading: open.heading, lines: body, short: isShort(body) });
    }
    open = { at: i, heading: m[1]!.trim() };
  }
  return sections;
}

const isShort = (body: readonly Span[]) =>
  body.length <= MAX_ENTRY_LINES &&
  body.every((line) => line.text.length <= MAX_ENTRY_CHARS && !line.text.includes('\t'));

const isFreeText = (line: Span) =>
  !NOT_AN_ENTRY.test(line.text) &&
  FREE_TEXT.test(line.text) &&
  !NO_FREE_TEXT.test(line.text) &&
  !CLAUSE_LANGUAGE.test(line.text) &&
  typedValues(line).length === 0;

/** How many short sections in a row make a form's run of entries. */
const MIN_RUN = 3;

/**
 * Each written-in line under a heading of a form's run of headed entries, named by its heading. A
 * line that is all placeholder (`blank`: a draft's entry still to write) is an entry of the run
 * all the same: the form's layout does not change as it is filled in.
 */
export function headedEntries(
  lines: readonly Span[],
  blank: (line: Span) => boolean = () => false,
): Candidate[] {
  const sections = sectionsOf(lines);
  const found: Candidate[] = [];
  for (let start = 0; start < sections.length; ) {
    let end = start;
    while (end < sections.length && sections[end]!.short) end += 1;
    if (end - start >= MIN_RUN)
      for (const section of sections.slice(start, end)) {
        const written = section.lines.filter((line) => !blank(line));
        if (!written.every(isFreeText)) continue;
        const name = toSnakeCase(section.heading);
        for (const line of written)
          found.push({ type: 'value', name, named: true, text: line.text, index: line.index, slot: true });
      }
    start = end + 1;
  }
  return found;
}

/**
 * A heading over a question and its answer: a form's annex or schedule that asks, section by
 * section, what the parties fill in (the EU's standard contractual clauses: `Data subjects` / `The
 * personal data transferred concern the following categories of data subjects:` / the answer). The
 * heading is a short line, capitalised, with no full stop or colon; the question ends with a colon
 * on the line under it; the answer is the lines under the question up to the next heading (at most
 * `MAX_ENTRY_LINES`, a line that is only a blank's rule or ellipsis being one still to write). As
 * for headings in capitals, only a run of at least `MIN_RUN` such sections is a form's, and only
 * answers in plain words are read (`isFreeText`). A contract's heading over a list's lead-in
 * ("Definitions" / "In this Agreement:", "Services" / "The Supplier shall:") is no question: the
 * lead-in is drafted in the contract's language of obligation.
 */
const SHORT_HEADING = /^\p{Lu}[\p{L}\p{N} ,'’&/()-]{1,80}$/u;
const MAX_HEADING_WORDS = 8;
const MAX_QUESTION_CHARS = 300;
/** A line a form leaves to write on: rules, dots or an ellipsis only. */
const BLANK_LINE = /^[_＿.…\s]+$/;

interface Prompted {
  heading: string;
  answers: Span[];
  /** The line after the section. */
  next: number;
}

function promptedAt(lines: readonly Span[], at: number): Prompted | null {
  const heading = lines[at]?.text ?? '';
  const question = lines[at + 1]?.text ?? '';
  if (!SHORT_HEADING.test(heading) || heading.split(' ').length > MAX_HEADING_WORDS) return null;
  if (!question.endsWith(':') || question.length > MAX_QUESTION_CHARS || question.includes('\t')) return null;
  // "The Supplier shall:", "In this Agreement:": a lead-in drafted in a contract's language of
  // obligation is the contract's own list, not a form's question.
  if (CLAUSE_LANGUAGE.test(question)) return null;
  const answers: Span[] = [];
  let i = at + 2;
  for (; i < lines.length && i < at + 2 + MAX_ENTRY_LINES; i += 1) {
    const line = lines[i]!;
    if (BLANK_LINE.test(line.text)) continue;
    // The next section's heading over its question ends this one, as a heading in capitals does.
    if (SHORT_HEADING.test(line.text) && (lines[i + 1]?.text ?? '').endsWith(':')) break;
    if (CAPS_HEADING.test(line.text)) break;
    if (line.text.length > MAX_ENTRY_CHARS || line.text.includes('\t') || line.text.endsWith(':')) break;
    answers.push(line);
  }
  return i > at + 2 ? { heading, answers, next: i } : null;
}

/** Each answer of a form's run of headed questions, named by its heading. */
export function promptedEntries(lines: readonly Span[]): Candidate[] {
  const found: Candidate[] = [];
  for (let i = 0; i < lines.length; ) {
    const run: Prompted[] = [];
    for (let section = promptedAt(lines, i); section; section = promptedAt(lines, section.next))
      run.push(section);
    if (run.length >= MIN_RUN)
      for (const section of run)
        for (const line of section.answers)
          if (isFreeText(line))
            found.push({
              type: 'value',
              name: toSnakeCase(section.heading),
              named: true,
              text: line.text,
              index: line.index,
              slot: true,
            });
    i = run.length > 0 ? run.at(-1)!.next : i + 1;
  }
  return found;
}
