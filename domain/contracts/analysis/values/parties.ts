/**
 * The parties of a contract: each one's name where the contract defines it
 * (`TechCo Inc. (the "Provider")`, `Acme, Inc., a Delaware corporation ("Acme")`) or lists
 * it in the preamble ("between Globex Corporation and Initech GmbH"), and the role it goes by.
 */
import { toSnakeCase } from '../placeholders.ts';
import { partyNameAt } from './block-columns.ts';
import type { Candidate } from './candidate.ts';
import { type Definition, definitionsIn, isShortName, NOT_PARTY_WORDS } from './definitions.ts';
import { namesInstitution } from './institutions.ts';
import type { Span } from './lines.ts';
import {
  describedCompany,
  entityBefore,
  foundersAhead,
  isAndCompany,
  isEntitySuffix,
  isInnerAnd,
  type NameRun,
  nameAt,
} from './names.ts';

export interface Party {
  /** snake_case: the role's defined term (`provider`), else `party_1`, `party_2`, … */
  role: string;
  name: string;
  /** The short name the contract gives it (`Acme`), when it gives one (a defined term: not a value). */
  nickname?: string;
  /** The defined role as written (`Provider`), to recognise it in signature blocks. */
  term?: string;
}

/**
 * Where the stretch naming a party starts before its definition: after "between", "and", "by",
 * ";" (its descriptor, "a Delaware corporation with offices at …", lies between name and definition),
 * and after the definition that closed the party before it ("between A ("X"), B ("Y") and C").
 * Some drafters set the list of parties off with a comma ("is by and between, Acme Limited, a PRC
 * corporation …, and …"), as a list after "namely," is: the name starts after it.
 */
const SEPARATORS = /(?:^|\s)(?:(?:between|among),?|and|by)\s|[;:]\s|\),(?=\s)/gi;

const MAX_PARTIES = 20;

/** How far back before a definition its party's name is sought (a long line must stay linear). */
const MAX_STRETCH = 400;

/**
 * " AND " inside a name written in capitals ("ATHENE ANNUITY AND LIFE COMPANY"): between two words
 * in capitals, the first no legal-entity suffix. Filings write the "and" between two parties in
 * lower case, or after a suffix ("ACME CORP. AND BETA LLC").
 */
function isNamesAnd(line: string, at: number, separator: string, defined: ReadonlySet<string>): boolean {
  const before =
    line
      .slice(Math.max(0, at - 40), at)
      .split(' ')
      .at(-1) ?? '';
  // "Eli Lilly and Company, an Indiana corporation": a firm's name.
  if (
    separator.trim() === 'and' &&
    isAndCompany(before, line.slice(at + separator.length, at + separator.length + 20))
  )
    return true;
  // "Offshore and Marine Holdings LLC": one name, unless the word before "and" is a term the
  // contract defines ("between the Company and Rural Cellular Corporation"), a party's own.
  // "Sears, Roebuck and Co.": the founders' names of a firm.
  const prior = line.slice(Math.max(0, at - 60), at).split(' ');
  if (separator.trim() === 'and' && prior.length > 2) {
    const list = [prior.at(-2)!, before, ...line.slice(at + 1, at + 40).split(' ')].map((text) => ({ text }));
    if (prior.at(-2)!.endsWith(',') && foundersAhead(list, 0)) return true;
  }
  if (separator.trim() === 'and' && !defined.has(before)) {
    const after = line.slice(at + separator.length, at + separator.length + 80).split(' ');
    if (
      isInnerAnd(
        before,
        after.map((text) => ({ text })),
      )
    )
      return true;
  }
  if (separator.trim() !== 'AND') return false;
  const after = /^\s*AND\s(\S*)/.exec(line.slice(at, at + 60))?.[1] ?? '';
  return /^[A-Z0-9&]{2,}$/.test(before) && !isEntitySuffix(before) && /^[A-Z]{2}/.test(after);
}

function partyStretchStart(line: string, open: number, defined: ReadonlySet<string>): number {
  const from = Math.max(0, open - MAX_STRETCH);
  let start = from;
  for (const m of line.slice(from, open).matchAll(SEPARATORS)) {
    if (isNamesAnd(line, from + m.index, m[0], defined)) continue;
    start = from + m.index + m[0].length;
  }
  // A list marker opening the line: "1.", "(a)", "(i)".
  const marker = /^(?:\d{1,3}[.)]|\([0-9a-z]{1,4}\))\s/i.exec(line.slice(start, open));
  if (marker) start += marker[0].length;
  // "and the Okapi Events Foundation, a California nonprofit …": before an institution's name the
  // article in lower case is the sentence's ("The Apache Software Foundation" writes its own in
  // capitals); before a description ("the Project Signatories") it is the description's.
  const named = line.startsWith('the ', start) ? nameAt(line.slice(start + 4, open)) : null;
  return named && namesInstitution(named.text) ? start + 4 : start;
}

/**
 * The parties defined in `lines`: names before definitions anywhere when they end with a
 * legal-entity suffix, and any name before a definition in the preamble (the lines before
 * `preambleEnd`), where parties are introduced. Candidates for their names.
 */
export function findParties(
  lines: Span[],
  preambleEnd: number,
): { parties: Party[]; candidates: Candidate[] } {
  const parties: Party[] = [];
  const candidates: Candidate[] = [];
  const byName = new Map<string, Party>();
  let unnamed = 0;
  const addParty = (nameText: string, nameIndex: number, termOf: Definition | null) => {
    const roleTerm = termOf?.terms.find((t) => t.article || !isShortName(t.text, nameText));
    const short = termOf?.terms.find((t) => t !== roleTerm && !t.article && isShortName(t.text, nameText));
    let party = byName.get(nameText);
    // A contract has a handful of parties: more would be a list, and every line is compared with each.
    if (!party && parties.length >= MAX_PARTIES) return;
    if (!party) {
      const role = roleTerm ? toSnakeCase(roleTerm.text) : '';
      party = { role: role || `party_${++unnamed}`, name: nameText, term: roleTerm?.text };
      byName.set(nameText, party);
      parties.push(party);
    }
    candidates.push({
      type: 'party',
      name: `${party.role}_name`,
      named: true,
      text: nameText,
      index: nameIndex,
    });
    // The short name ("Acme") is a defined term, the contract's own wording: not a value, but
    // it still tells whose signature block a heading opens.
    if (short && short.text !== nameText) party.nickname ??= short.text;
  };

  // The terms the contract defines ("Company", "Stockholder"): such a word before "and" is a party's term.
  // A title in capitals writes them in capitals ("AGREEMENT BETWEEN HALCYON AND …" for "Halcyon").
  const defined = new Set<string>();
  for (const line of lines)
    for (const definition of definitionsIn(line.text))
      for (const term of definition.terms) defined.add(term.text).add(term.text.toUpperCase());
  const individuals: Listed[] = [];
  lines.forEach((line, lineNumber) => {
    const inPreamble = lineNumber < preambleEnd;
    let definedHere = 0;
    let closed = -1;
    for (const definition of definitionsIn(line.text)) {
      const previousClose = closed;
      closed = definition.close;
      if (definition.group) continue;
      // (the "Agreement"), (the "Effective Date"): a document or a date is defined, not a party.
      if (definition.terms.some((t) => NOT_PARTY_WORDS.has(t.text.split(' ').at(-1)!.toLowerCase())))
        continue;
      const person = inPreamble
        ? individualBefore(
            line.text,
            Math.max(previousClose + 1, definition.open - MAX_STRETCH),
            definition.open,
          )
        : null;
      if (person) {
        addParty(person.text, line.index + person.start, definition);
        definedHere += 1;
        continue;
      }
      const start = partyStretchStart(line.text, definition.open, defined);
      const stretch = line.text.slice(start, definition.open);
      // "Jane Roe, director of Acme Ltd (the "Company")": the organization is the party.
      const first = afterOffice(nameAt(stretch));
      const name =
        (first?.entity
          ? first
          : (namingEntity(stretch) ?? organizationOf(stretch) ?? describedCompany(stretch))) ?? first;
      if (!name) continue;
      const lastWord = name.text.split(/\s+/).at(-1)!.toLowerCase();
      if (NOT_PARTY_WORDS.has(lastWord)) continue;
      if (definition.terms.some((t) => t.text === name.text)) continue;
      if (!name.entity && !(inPreamble && name.words <= 6)) continue;
      // A person's name stands right before its definition or before a descriptor after a comma
      // ("Idan Maimon ("Maimon")", "Jane Roe, director of …"); not "… Commission in contemplation of …".
      const gap = stretch.slice(name.start + name.text.length);
      if (!name.entity && gap.trim() !== '' && !gap.startsWith(',')) continue;
      addParty(name.text, line.index + start + name.start, definition);
      definedHere += 1;
    }
    // Several parties in one sentence, some without a definition ("between A ("X"), B ("Y") and
    // C Inc."): beside defined parties, a company (by its legal form) listed without one is a party
    // too; a person there is one's officer ("Ana Ruiz, director of Brightleaf (the "Client")").
    if (inPreamble) {
      for (const listed of listedParties(line, defined)) {
        if (definedHere === 0 || (listed.entity && !byName.has(listed.text)))
          addParty(listed.text, listed.index, null);
        // A person listed as "an individual" is a party too, once every definition has been read
        // (a sentence run on to the next line defines it there, "… an individual resident" / "of
        // the State of Florida ("Executive")", and gives it its role).
        else if (listed.individual) individuals.push(listed);
      }
    }
    for (const alias of aliases(line)) {
      // "EWSD 1, LLC d/b/a Shi Farms Gridiron BioNutrients, Inc.": the next block's party ends the other name.
      const next = partyNameAt(alias.after.text, parties);
      if (next > 0) alias.after.text = alias.after.text.slice(0, next).trimEnd();
      if (alias.before && inPreamble) addParty(alias.before.text, alias.before.index, null);
      const party = alias.before ? byName.get(alias.before.text) : undefined;
      if (alias.before && !party)
        candidates.push({ type: 'party', name: 'organization_name', named: false, ...alias.before });
      const kind = aliasKind(alias.marker);
      candidates.push({
        type: 'party',
        name: party ? `${party.role}_${kind}` : kind,
        named: true,
        text: alias.after.text,
        index: alias.after.index,
      });
    }
  });
  for (const listed of individuals) if (!byName.has(listed.text)) addParty(listed.text, listed.index, null);
  return { parties, candidates };
}

/**
 * An officer's title before "of" and the company ("… your employment as Executive Vice President
 * and Chief Operating Officer of FirstEnergy Corp. (“FirstEnergy”)"): a company's officers are
 * named for their office "of" the company (the officers a corporation's bylaws name, DGCL § 142),
 * and no registered name holds an officer's title, so the company is the name after the last "of".
 */
const OFFICER_OF =
  /\b(?:Officer|OFFICER|President|PRESIDENT|Director|DIRECTOR|Secretary|SECRETARY|Treasurer|TREASURER|Chairman|CHAIRMAN|Chairperson|Controller|Counsel|CEO|CFO|COO|CTO) (?:of|OF) /g;
function afterOffice(name: NameRun | null): NameRun | null {
  if (!name?.entity) return name;
  let end = -1;
  for (const m of name.text.matchAll(OFFICER_OF)) end = m.index + m[0].length;
  if (end < 0) return name;
  const company = nameAt(name.text.slice(end));
  return company?.entity ? { ...company, start: name.start + end + company.start } : name;
}

/**
 * The organization named by its legal form at the end of `stretch`, unless an article stands
 * before it: "WordPress Community Support, a Public Benefit Corporation" describes the party by
 * its form (as "a Delaware corporation" does), whatever its capitals; the party is named before.
 */
function namingEntity(stretch: string): NameRun | null {
  const name = entityBefore(stretch);
  if (!name) return null;
  return /(?:^|\s)(?:an?|An?|AN?)\s$/.test(stretch.slice(Math.max(0, name.start - 4), name.start))
    ? null
    : name;
}

/**
 * "and Gunars Valkirs, an individual, who is a resident of and employed in the State of California
 * ("Employee")": preambles introduce a person who is a party as "an individual", as they introduce
 * a company by its descriptor ("a Delaware corporation"); the name before it is the party's,
 * whatever the description after it holds (an "and" there separates no parties). Sought between
 * `from` and `to` (after the previous definition, before this one).
 */
function individualBefore(text: string, from: number, to: number): NameRun | null {
  let marker = -1;
  for (const m of text.slice(from, to).matchAll(/,\san\sindividual\b/gi)) marker = from + m.index;
  if (marker < 0) return null;
  const base = Math.max(from, marker - 80);
  const name = personBefore(text.slice(base, marker));
  return name && !name.entity && name.words >= 2 ? { ...name, start: base + name.start } : null;
}

/** A person's office before an organization's name: "director of FreeCook", "CEO of Acme". */
const OFFICE_OF =
  /,\s(?:a\s|the\s)?(?:director|president|owner|manager|partner|member|officer|founder|ceo|principal|chairman|representative)\sof\s/i;

/** The organization a person acts for, named after their office ("Jane Roe, director of FreeCook"), or null. */
function organizationOf(stretch: string): NameRun | null {
  const office = OFFICE_OF.exec(stretch);
  if (!office) return null;
  const offset = office.index + office[0].length;
  const name = nameAt(stretch.slice(offset));
  return name && name.start === 0 && name.words <= 6 ? { ...name, start: offset } : null;
}

/**
 * What introduces the parties in a preamble: "between", "among", and "is made by" / "entered
 * into by" ("This Agreement is entered into by Acme, Inc. and Beta LLC"), not "by and between".
 */
const LIST_KEYWORD = /\b(?:between|among|(?:made|entered into|executed) by(?! and\b))\s/i;

/**
 * A name listed among the parties: a company (`entity`, by its legal form or its descriptor), a
 * person introduced as "an individual" (the preamble's descriptor of a person, as "a Delaware
 * corporation" is a company's: "and John Demmler, an individual having an address at …"), or a
 * name of two to four words.
 */
interface Listed extends Span {
  entity: boolean;
  individual: boolean;
}
const INDIVIDUAL = /^,\san\sindividual\b/i;

/**
 * "… between Globex Corporation and Initech GmbH.", "by and among A, B and C": the names after
 * "between", "among" or "made by". A part between two "and"s is one name, and each company
 * after a comma in it ("Alpha Corp., Beta Holdings LLC") another.
 */
function listedParties(line: Span, defined: ReadonlySet<string>): Listed[] {
  const keyword = LIST_KEYWORD.exec(line.text);
  if (!keyword) return [];
  const found: Listed[] = [];
  let from = keyword.index + keyword[0].length;
  // The list ends with its sentence ("… between the Sponsor and Promoter. The Sponsor agrees …").
  const sentenceEnd = line.text.slice(from).search(/[a-z]\.\s+[A-Z]/);
  const listEnd = sentenceEnd < 0 ? line.text.length : from + sentenceEnd + 2;
  for (let parts = 0; parts < 6 && from < listEnd; parts += 1) {
    let nextAnd = listJoin(line.text, from, listEnd, defined);
    // "Eli Lilly and Company, an Indiana corporation": one name, the list goes on after it.
    if (
      nextAnd >= 0 &&
      line.text[from + nextAnd] === ' ' &&
      isNamesAnd(line.text, from + nextAnd, ' and ', defined)
    ) {
      const after = listJoin(line.text, from + nextAnd + 5, listEnd, defined);
      nextAnd = after < 0 ? -1 : nextAnd + 5 + after;
    }
    const end = nextAnd < 0 ? listEnd : from + nextAnd;
    const part = line.text.slice(from, end);
    // "between IXIA, a California corporation, …": a descriptor after it makes a name a company's.
    const name = describedCompany(part) ?? nameAt(part);
    if (name && (name.entity || (name.words >= 2 && name.words <= 4))) {
      const lastWord = name.text.split(/\s+/).at(-1)!.toLowerCase();
      if (!NOT_PARTY_WORDS.has(lastWord))
        found.push({
          text: name.text,
          index: line.index + from + name.start,
          entity: name.entity,
          individual: INDIVIDUAL.test(part.slice(name.start + name.text.length)),
        });
    }
    // "Alpha Corp., Beta Holdings LLC": another company after a comma (a place after one is no party).
    for (
      let comma = part.indexOf(', ', name ? name.start + name.text.length : 0), n = 0;
      comma >= 0 && n < 6;
      n += 1
    ) {
      const next = nameAt(part.slice(comma + 2));
      if (next?.entity && next.start === 0)
        found.push({
          text: next.text,
          index: line.index + from + comma + 2,
          entity: true,
          individual: false,
        });
      comma = part.indexOf(', ', comma + 2 + (next?.text.length ?? 0));
    }
    if (nextAnd < 0) break;
    // "between A and B regarding the connection between X (…), owned by A, and Y": the list ends
    // where the sentence turns to its subject; what is named after is no party.
    if (name && LIST_ENDS.test(part.slice(name.start + name.text.length))) break;
    from = end + line.text.slice(end).match(/^,?\s(?:and|AND|&)\s/)![0].length;
  }
  return found;
}

/** What turns a sentence from its parties to its subject: "regarding", "concerning", "with respect to". */
const LIST_ENDS =
  /^,?\s(?:regarding|concerning|relating to|respecting|with respect to|in respect of|for the purpose|whereby|under which|pursuant to)\s/;

/**
 * Where the next "and" that separates two listed parties stands in `text` between `from` and
 * `to` (relative to `from`), or −1. An "&" separates them only after a legal form ("Acme Inc. &
 * Beta LLC"): inside a name it joins the founders' or partners' names of one firm ("Marlow &
 * Finch Limited", "Johnson & Johnson"), and filings list parties with "and". A title in capitals
 * writes its "AND" in capitals too, inside a name ("ATHENE ANNUITY AND LIFE COMPANY") and between
 * parties: there it separates two only after a term the contract defines for a party
 * ("AGREEMENT BETWEEN PBIS AND SOLOPOINT, INC.", where "PBIS" is defined), as a lower-case "and"
 * after one does (`isNamesAnd`).
 */
function listJoin(text: string, from: number, to: number, defined: ReadonlySet<string>): number {
  const joins = /,?\s(?:and|AND|&)\s/g;
  const stretch = text.slice(from, to);
  for (let m = joins.exec(stretch); m; m = joins.exec(stretch)) {
    const before =
      stretch
        .slice(Math.max(0, m.index - 20), m.index)
        .split(' ')
        .at(-1) ?? '';
    if (m[0].includes('and')) return m.index;
    if (m[0].includes('AND') ? defined.has(before) : isEntitySuffix(before)) return m.index;
  }
  return -1;
}

/**
 * Another name of a party: "Acme Holdings Inc. f/k/a Acme Corp.", "formerly known as", "d/b/a",
 * "doing business as", "a/k/a", "now known as". Filings name a renamed party by both names, and a
 * party trading under another name by both; each is a name a template would replace.
 */
const ALIAS =
  /\b(?:f\/k\/a|n\/k\/a|a\/k\/a|d\/b\/a|formerly(?: known as)?|now known as|also known as|doing business as|trading as)\s/gi;

interface Alias {
  marker: string;
  before: Span | null;
  after: Span;
}

/** What the other name is: a former name, a trade name, or another name. */
function aliasKind(marker: string): string {
  if (/^(?:f\/k\/a|formerly)/.test(marker)) return 'former_name';
  if (/^(?:d\/b\/a|doing|trading)/.test(marker)) return 'trade_name';
  return 'other_name';
}

/** The names on both sides of each alias marker of `line`. */
function aliases(line: Span): Alias[] {
  const found: Alias[] = [];
  for (const m of line.text.matchAll(ALIAS)) {
    const start = m.index + m[0].length;
    const after = nameAt(line.text.slice(start, start + 200));
    if (after?.start !== 0 || after.words > 8) continue;
    // The name before it, a comma or a parenthesis between them ("Acme Inc. (f/k/a …)").
    const base = Math.max(0, m.index - 200);
    let end = m.index;
    while (end > base && /[\s,(]/.test(line.text[end - 1]!)) end -= 1;
    const stretch = line.text.slice(base, end);
    const before = entityBefore(stretch) ?? personBefore(stretch);
    found.push({
      marker: m[0].trim().toLowerCase(),
      before: before ? { text: before.text, index: line.index + base + before.start } : null,
      after: { text: after.text, index: line.index + start },
    });
  }
  return found;
}

/** The name of two to four capitalised words that ends `stretch` ("… between John Smith"), or null. */
function personBefore(stretch: string): NameRun | null {
  const words = stretch.split(' ');
  let first = words.length;
  while (first > 0 && words.length - first < 4 && /^\p{Lu}[\p{L}.'’-]*$/u.test(words[first - 1]!)) first -= 1;
  if (words.length - first < 2) return null;
  const offset = words.slice(0, first).join(' ').length + (first > 0 ? 1 : 0);
  const name = nameAt(stretch.slice(offset));
  return name && offset + name.start + name.text.length === stretch.length
    ? { ...name, start: offset + name.start }
    : null;
}
