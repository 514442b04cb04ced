/**
 * Values the wording only quotes: `the Tenant "Michael" shall deposit with the Landlord "Parsa"`,
 * `in accordance with the laws of "New Jersey"`, `an interest bearing account in "Bank of
 * America"`. A form filled in by hand (or by a mail merge that quotes its fields) puts the value
 * where the blank stood, after the role noun or the preposition that takes it.
 *
 * A quoted defined term is no value: contracts introduce a defined term by a definition, in
 * parentheses (`(the "Company")`, `(hereinafter "Acme")`), before "means" / "shall mean" / "has
 * the meaning" / "includes" / "herein", or after an article or "as" (`the "Effective Date"`,
 * `referred to as "Licensee"`). A quoted value follows a role noun (`the Tenant "…"`) or a
 * preposition that takes a name or a place (`of`, `in`, `at`, `with`, `by`, `from`, `to`).
 */
import { toSnakeCase } from '../placeholders.ts';
import type { Candidate } from './candidate.ts';
import type { Span } from './lines.ts';

/** A quoted value is a name or a place: a few words. */
const MAX_QUOTED = 60;
const OPENING = '"“';
/** What comes right after a quoted defined term: its definition or the parenthesis that holds it. */
const DEFINITION_AFTER =
  /^[\s’'”,]{0,3}\)|^\s?(?:means\b|shall mean\b|shall have\b|has the meaning|have the meaning|includes?\b|refers? to\b|is defined\b|are defined\b|as defined\b|herein\b|hereinafter\b|or the\b)/i;
/** What comes right before a quoted defined term: an article, "as", or a word that names a term. */
const DEFINITION_BEFORE =
  /(?:^|\s)(?:the|a|an|each|any|such|as|called|termed|terms?|words?|phrases?|hereinafter|herein|definition of|meaning of|defined as|label|marked|entitled|titled|captioned)\s*$/i;
/** "the Tenant ", "said Landlord ": a role noun (one or two capitalised words) after an article. */
const ROLE_BEFORE = /(?:^|\s)(?:[Tt]he|[Ss]aid)\s(\p{Lu}\p{Ll}+(?:\s\p{Lu}\p{Ll}+)?)\s?,?\s$/u;
/** "the laws of ", "law of ": the governing law's place. */
const LAWS_OF = /\blaws?\sof\s(?:the\s)?$/i;
/** A preposition that takes a name or a place. */
const PREPOSITION_BEFORE = /(?:^|\s)(?:of|in|at|with|by|from|to)\s$/i;
/** Role nouns that are references or documents, not parties. */
const NOT_ROLES = new Set([
  'agreement',
  'section',
  'article',
  'exhibit',
  'schedule',
  'annex',
  'appendix',
  'clause',
  'contract',
  'term',
  'terms',
  'word',
  'words',
  'phrase',
  'definition',
]);
/** A quoted reference ("Exhibit A") or a sentence is no name. */
const REFERENCE = /^(?:Exhibit|Schedule|Section|Article|Annex|Appendix|Attachment|Clause|Part|Paragraph)s?\b/;

/** Each quoted text of a line once, with what stands before and after it (linear in the line). */
function* quotes(text: string): Generator<{ quoted: string; start: number; before: string; after: string }> {
  for (let at = 0; at < text.length; at += 1) {
    const open = text[at]!;
    if (!OPENING.includes(open)) continue;
    const close = text.indexOf(open === '“' ? '”' : '"', at + 1);
    if (close < 0) break;
    const quoted = text.slice(at + 1, close);
    const start = at + 1;
    // Each pair is read once: the next opening quote is looked for after this one's close.
    at = close;
    if (close - start > MAX_QUOTED || quoted.trim() !== quoted || !quoted) continue;
    yield {
      quoted,
      start,
      before: text.slice(Math.max(0, start - 1 - 40), start - 1),
      after: text.slice(close + 1, close + 1 + 30),
    };
  }
}

/** Whether a quoted text is introduced as a defined term (by the conventions above). */
function isDefinition(before: string, after: string): boolean {
  // Inside a parenthesis opened just before: a definition (`(the "Company")`) or an example.
  return before.lastIndexOf('(') > before.lastIndexOf(')') || DEFINITION_AFTER.test(after);
}

/** The terms a contract defines in quotes, in lower case: a later quote of one is the term again. */
export function definedTerms(lines: readonly Span[]): Set<string> {
  const terms = new Set<string>();
  for (const line of lines) {
    for (const { quoted, before, after } of quotes(line.text)) {
      if (isDefinition(before, after)) terms.add(quoted.toLowerCase());
    }
  }
  return terms;
}

export function quotedValues(line: Span, defined: ReadonlySet<string>): Candidate[] {
  const found: Candidate[] = [];
  for (const { quoted, start, before, after } of quotes(line.text)) {
    if (!/^[\p{Lu}\d]/u.test(quoted) || defined.has(quoted.toLowerCase())) continue;
    if (REFERENCE.test(quoted) || /[.;:!?]$/.test(quoted) || quoted.split(' ').length > 8) continue;
    if (isDefinition(before, after)) continue;
    const role = ROLE_BEFORE.exec(before);
    if (role && !NOT_ROLES.has(role[1]!.toLowerCase())) {
      found.push(candidate('party', `${toSnakeCase(role[1]!)}_name`, quoted, line.index + start));
      continue;
    }
    if (DEFINITION_BEFORE.test(before)) continue;
    if (LAWS_OF.test(before)) {
      found.push(candidate('governing_law', 'governing_law', quoted, line.index + start));
      continue;
    }
    if (PREPOSITION_BEFORE.test(before)) found.push(candidate('party', 'name', quoted, line.index + start));
  }
  return found;
}

function candidate(type: Candidate['type'], name: string, text: string, index: number): Candidate {
  return { type, name, named: true, text, index, slot: true };
}
