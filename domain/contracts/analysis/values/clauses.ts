/**
 * Governing law ("governed by the laws of the State of Delaware": `State of Delaware`) and venue
 * ("the courts located in New Castle County, Delaware"): the place, which is what a person replaces.
 */
import type { Candidate } from './candidate.ts';
import type { Span } from './lines.ts';

const LAW_CLAUSE = /\b(?:governed|governing law|construed|interpreted|enforced)\b/i;
/** "the laws of the State of Colorado": the jurisdiction is "State of Colorado", without its article. */
const LAWS_OF = /\b(?:laws?|statutes) of (?:the )?/gi;
const COURTS = /\bcourts?\b/gi;
/** What leads from "courts" to their place, in the 80 characters after "courts" and in the same sentence. */
const VENUE_LEAD = /\b(?:located in|sitting in|situated in|seated in|in and for|of|in|at) (?:the )?/gi;
/** "venue in Denver, Colorado", "venue shall lie in the courts of …": the place of the venue itself. */
const VENUE_IN = /\bvenue (?:in|at) (?:the )?/gi;
/** "the Court of Chancery", "Court of Appeals": the court's own name, not its place. */
const COURT_NAMES = new Set(['Chancery', 'Appeals', 'Justice', 'Claims', 'Arbitration', 'Session']);
/** A jurisdiction: "State of Delaware", "Commonwealth of Virginia", its name and no more. */
const JURISDICTION = /^(?:State|Commonwealth|Province|Republic|Kingdom) of (?:the )?/;

/**
 * The capitalised place at `start` of `line`: "New Castle County, Delaware", "England and Wales";
 * a jurisdiction ("State of Washington, U.S.A.") ends with its name.
 */
function placeAt(line: string, start: number): number {
  let end = start;
  let cursor = start;
  const jurisdiction = JURISDICTION.exec(line.slice(start, start + 30));
  if (jurisdiction) cursor += jurisdiction[0].length;
  for (let words = 0; words < 8; words += 1) {
    const match = /^(?:,? (?:and|of) |, | )?/.exec(line.slice(cursor, cursor + 6))!;
    const joiner = words === 0 ? '' : match[0];
    if (jurisdiction && words > 0 && joiner !== ' ') break;
    if (words > 0 && !joiner) break;
    const wordStart = cursor + joiner.length;
    let wordEnd = wordStart;
    while (wordEnd < line.length && /[A-Za-z.'’-]/.test(line[wordEnd]!)) wordEnd += 1;
    const word = line.slice(wordStart, wordEnd).replace(/\.$/, '');
    if (!/^[A-Z]/.test(word)) break;
    end = wordStart + word.length;
    cursor = end;
  }
  return end;
}

/** A place, not a reference ("Section 9") nor a defined court ("the Chosen Courts"). */
function isPlace(place: string): boolean {
  return !/\b(?:Courts?|Section|Article|Clause|Exhibit|Schedule|Appendix|Annex|Paragraph|Agreement|Act|Code|Rules|Regulations?)\b/.test(
    place,
  );
}

export function clauseValues(line: Span): Candidate[] {
  const found: Candidate[] = [];
  const add = (type: 'governing_law' | 'venue', start: number, end: number) => {
    const text = line.text.slice(start, end);
    if (text) found.push({ type, name: type, named: true, text, index: line.index + start });
  };
  if (LAW_CLAUSE.test(line.text)) {
    for (const m of line.text.matchAll(LAWS_OF)) {
      const start = m.index + m[0].length;
      add('governing_law', start, placeAt(line.text, start));
    }
  }
  for (const court of line.text.matchAll(COURTS)) {
    const after = court.index + court[0].length;
    let window = line.text.slice(after, after + 100);
    const stop = window.search(/[.;]/);
    if (stop >= 0) window = window.slice(0, stop);
    // "the courts of competent jurisdiction at New York City": the first lead followed by a place.
    for (const m of window.matchAll(VENUE_LEAD)) {
      if (m.index > 80) break;
      const start = after + m.index + m[0].length;
      const end = placeAt(line.text, start);
      // "the courts of competent jurisdiction" names no place; a place starts with a capital.
      const place = line.text.slice(start, end);
      if (end <= start || COURT_NAMES.has(place) || !isPlace(place)) continue;
      // "a court … in respect of the Maker": one capitalised word after "of the" is a defined term.
      if (/^of the $/.test(m[0]) && !place.includes(' ')) continue;
      add('venue', start, end);
      break;
    }
  }
  for (const m of line.text.matchAll(VENUE_IN)) {
    const start = m.index + m[0].length;
    const end = placeAt(line.text, start);
    if (end > start && isPlace(line.text.slice(start, end))) add('venue', start, end);
  }
  return found;
}
