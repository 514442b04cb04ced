/**
 * Governing law ("governed by the laws of the State of Delaware": `State of Delaware`) and venue
 * ("the courts located in New Castle County, Delaware"): the place, which is what a person replaces.
 */
import type { Candidate } from './candidate.ts';
import type { Span } from './lines.ts';
import { US_STATE_NAMES, US_STATE_PAIRS } from './typed.ts';

/**
 * What makes a sentence a choice of law: "governed by", "construed", "interpreted under",
 * "enforced", "shall govern", and the clause's usual headings ("Governing Law.", "Applicable
 * Law", "Choice of Law").
 */
const LAW_CLAUSE =
  /\b(?:govern(?:s|ed|ing)?|construed|interpret(?:ed|ation)|enforced|enforcement|applicable law|choice of law)\b/i;
/**
 * "the laws of the State of Colorado": the jurisdiction is "State of Colorado", without its
 * article. Filings put words between "laws" and "of": "the laws and public policies of", "the
 * laws (other than the conflict of laws rules) of".
 */
const LAWS_OF = /\b(?:laws?|statutes)(?: and public polic(?:y|ies)| \([^()]{1,80}\))? of (?:the )?/gi;
/**
 * "the laws thereof", "the laws of such State": the jurisdiction was named earlier in the
 * sentence ("… accepted in the State of Nevada and governed by the laws thereof").
 */
const LAWS_THEREOF = /\blaws? (?:thereof|of (?:such|said|that|this) (?:state|commonwealth)\b)/gi;
/** A jurisdiction named in a sentence: "the State of Nevada", "the Commonwealth of Virginia". */
const NAMED_JURISDICTION = /\b(?:State|Commonwealth) of (?=[A-Z])/g;
/** "Texas law", "under New York law": a state's name before "law", not followed by "of". */
const STATE_LAW = /\b[Ll]aws?\b(?! of)/g;
/** A second jurisdiction after the first: "the United States and the State of Indiana". */
const AND_JURISDICTION = /^,? and (?:the )?(?=(?:State|Commonwealth) of )/i;
/** How far back in its sentence "the laws thereof" looks for the place it refers to. */
const THEREOF_REACH = 300;
const COURTS = /\bcourts?\b/gi;
/** What leads from "courts" to their place, in the 80 characters after "courts" and in the same sentence. */
const VENUE_LEAD = /\b(?:located in|sitting in|situated in|seated in|in and for|of|in|at) (?:the )?/gi;
/** "venue in Denver, Colorado", "venue shall lie in the courts of …": the place of the venue itself. */
const VENUE_IN = /\bvenue (?:in|at) (?:the )?/gi;
/** "the Court of Chancery", "Court of Appeals": the court's own name, not its place. */
const COURT_NAMES = new Set(['Chancery', 'Appeals', 'Justice', 'Claims', 'Arbitration', 'Session']);
/** A jurisdiction: "State of Delaware", "Commonwealth of Virginia", its name and no more. */
// In capitals or not: "the laws of the state of Iowa", "THE STATE OF TEXAS".
const JURISDICTION = /^(?:State|Commonwealth|Province|Republic|Kingdom) of (?:the )?/i;

/**
 * English function words as a sentence in capitals writes them ("… A WAIVER OF ALL CIVIL OR
 * CONTRACTUAL LIABILITY IN CONNECTION WITH …"): every word there is capitalised, so capitals do not
 * mark a name; a place's name rarely holds one of these words ("BURTON ON TRENT" without its
 * hyphens is cut), and none starts one.
 */
const CAPITAL_FUNCTION_WORDS = new Set(
  'ALL ANY EACH EVERY NO OR NOR BUT IF IN ON AT TO BY FOR FROM WITH WITHOUT AS IS ARE BE SHALL MAY WILL THAT THIS THESE THOSE SUCH ITS THEIR WHICH WHO'.split(
    ' ',
  ),
);

/**
 * The capitalised place at `start` of `line`: "New Castle County, Delaware", "England and Wales";
 * a jurisdiction ("State of Washington, U.S.A.") ends with its name.
 */
function placeAt(line: string, start: number): number {
  let end = start;
  let cursor = start;
  let previous = '';
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
    if (!/^[A-Z]/.test(word) || CAPITAL_FUNCTION_WORDS.has(word)) break;
    // A sentence in capitals ("THE STATE OF TEXAS WITHOUT REGARD …"): every word is capitalised,
    // so the state's name is one word, or two that name a state ("NEW YORK").
    if (jurisdiction && /^[A-Z]+ OF /.test(jurisdiction[0]) && words > 0) {
      if (!(words === 1 && US_STATE_PAIRS[word.toLowerCase()]?.includes(previous.toLowerCase()))) break;
    }
    end = wordStart + word.length;
    cursor = end;
    previous = word;
  }
  return end;
}

/** A place, not a reference ("Section 9") nor a defined court ("the Chosen Courts"). */
function isPlace(place: string): boolean {
  return !/\b(?:Courts?|Section|Article|Clause|Exhibit|Schedule|Appendix|Annex|Paragraph|Agreement|Act|Code|Rules|Regulations?)\b/.test(
    place,
  );
}

/**
 * The law and venue of `line`. `lawSection`: the line stands under a "Governing Law" heading,
 * so "the laws of …" in it is the contract's law even where no verb says so.
 */
export function clauseValues(line: Span, lawSection = false): Candidate[] {
  const found: Candidate[] = [];
  const add = (type: 'governing_law' | 'venue', start: number, end: number) => {
    const text = line.text.slice(start, end);
    if (text) found.push({ type, name: type, named: true, text, index: line.index + start });
  };
  if (lawSection || LAW_CLAUSE.test(line.text)) {
    for (const m of line.text.matchAll(LAWS_OF)) {
      const start = m.index + m[0].length;
      const end = placeAt(line.text, start);
      add('governing_law', start, end);
      const and = AND_JURISDICTION.exec(line.text.slice(end, end + 30));
      if (and && end > start) {
        const second = end + and[0].length;
        add('governing_law', second, placeAt(line.text, second));
      }
    }
    for (const m of line.text.matchAll(LAWS_THEREOF)) {
      const place = jurisdictionBefore(line.text, m.index);
      if (place) add('governing_law', place.start, place.end);
    }
    for (const m of line.text.matchAll(STATE_LAW)) {
      const start = stateNameBefore(line.text, m.index);
      // The verb in the same sentence: "governed by Florida law", not "as it relates to Florida law".
      if (start >= 0 && LAW_CLAUSE.test(sentenceBefore(line.text, start)))
        add('governing_law', start, m.index - 1);
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

/** The last jurisdiction named in the sentence before `at` ("the State of Nevada"), or null. */
function jurisdictionBefore(line: string, at: number): { start: number; end: number } | null {
  const from = Math.max(0, at - THEREOF_REACH);
  let window = line.slice(from, at);
  const sentence = window.lastIndexOf('. ');
  const offset = sentence >= 0 ? from + sentence + 2 : from;
  window = line.slice(offset, at);
  let found: { start: number; end: number } | null = null;
  for (const m of window.matchAll(NAMED_JURISDICTION)) {
    const start = offset + m.index;
    const end = placeAt(line, start);
    if (end > start + m[0].length) found = { start, end };
  }
  return found;
}

/** Where the US state named right before "law" at `law` starts ("Texas law", "New York law"), or −1. */
function stateNameBefore(line: string, law: number): number {
  if (line[law - 1] !== ' ') return -1;
  const words = line.slice(Math.max(0, law - 30), law - 1).split(' ');
  const last = words.at(-1)!;
  if (!/^[A-Z][a-z]+$/.test(last)) return -1;
  const name = last.toLowerCase();
  const first = words.at(-2);
  if (first && /^[A-Z][a-z]+$/.test(first) && US_STATE_PAIRS[name]?.includes(first.toLowerCase()))
    return law - 1 - last.length - 1 - first.length;
  return US_STATE_NAMES.has(name) ? law - 1 - last.length : -1;
}

/** The part of `line`'s sentence before `at`, at most 120 characters of it. */
function sentenceBefore(line: string, at: number): string {
  const window = line.slice(Math.max(0, at - 120), at);
  return window.slice(window.lastIndexOf('. ') + 1);
}
