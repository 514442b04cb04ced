/**
 * Organizations named anywhere in a contract by their legal form, beyond the parties the preamble
 * defines: an agent, a bank, a party's other spelling.
 */

import { partyNameAt } from './block-columns.ts';
import type { Candidate } from './candidate.ts';
import { namesInstitution } from './institutions.ts';
import type { Span } from './lines.ts';
import {
  entityBefore,
  foundersAhead,
  isCapitalised,
  isEntitySuffix,
  isInnerAnd,
  quotedNameAfter,
} from './names.ts';
import type { Party } from './parties.ts';

/**
 * Organizations named anywhere by their legal form ("… in an account at Harbor & Pike Logistics
 * Ltd.", "Corporation Service Company"): a party, an agent or a bank a template would name again.
 * Each suffix is read with the 200 characters before it, so a line of many stays linear.
 */
export function organizationsIn(
  line: Span,
  parties: readonly Party[],
  definedTerms: ReadonlySet<string> = new Set(),
): Candidate[] {
  const found: Candidate[] = [];
  for (const m of line.text.matchAll(/\S+/g)) {
    if (!isEntitySuffix(m[0]) || m.index === 0 || !isCapitalised(m[0])) continue;
    const end = m.index + m[0].length;
    // "a Delaware limited liability company", "the General Corporation Law": a descriptor or a longer name.
    const next = /^\s*(\S*)/.exec(line.text.slice(end, end + 40))![1]!;
    if (/^(?:liability|partnership|company|corporation|by)$/.test(next)) continue;
    if (!m[0].endsWith('.') && !m[0].endsWith(',') && isCapitalised(next)) continue;
    // "Las Vegas NV 89114", "Pueblo, CO 81006": a state before its ZIP code.
    if (/^\d{5}(?:-\d{4})?\b/.test(next)) continue;
    // "Co., Ltd.", "COMPANY, LLC": the last suffix of a chain reads the name.
    if (isEntitySuffix(next)) continue;
    // Within its cell, from the 200 characters before it.
    const floor = Math.max(0, m.index - 200);
    const from = floor + line.text.slice(floor, m.index).lastIndexOf('\t') + 1;
    const name = entityBefore(line.text.slice(from, end), (word) => definedTerms.has(word.toLowerCase()));
    if (!name) continue;
    // Signature blocks side by side: another column's words before a party's name are not its own.
    const whole = trimOrganization(name.text);
    const trimmed = whole.slice(partyNameAt(whole, parties));
    if (trimmed.split(' ').length < 2) continue;
    // "Statement of Work, Company", "the Operating Company": a name cut short, a party's defined term.
    // Not after a company's organ or people ("the Board of Directors of Interactive Data
    // Corporation", "an employee of …"): a company's body is named "the Board of X", whole.
    const before = name.text.slice(0, name.text.length - trimmed.length).trim();
    if (/\b(?:of|and|&)$/i.test(before) && !ORGAN_OF.test(before)) continue;
    if (
      definedTerms.has(trimmed.toLowerCase()) ||
      parties.some((p) => p.term === trimmed || p.nickname === trimmed)
    )
      continue;
    const start = from + name.start + name.text.length - trimmed.length;
    // "OPEN JOINT STOCK COMPANY “VIMPEL-COMMUNICATIONS”": the name in quotation marks after a form
    // in words is the name's (names.ts, quotedNameAfter).
    const quoted = quotedNameAfter(trimmed, line.text.slice(end, end + 80));
    // "a Nevada Corporation", "any Holding Company", "its Parent Company": a descriptor or a kind.
    if (DETERMINER_BEFORE.test(line.text.slice(Math.max(0, start - 10), start))) continue;
    if (GENERIC_COMPANY.test(trimmed)) continue;
    const lower = trimmed.toLowerCase();
    const party = parties.find((p) => p.name.toLowerCase() === lower);
    found.push({
      type: 'party',
      name: party ? `${party.role}_name` : 'organization_name',
      named: party !== undefined,
      text: trimmed + line.text.slice(end, end + quoted),
      index: line.index + start,
    });
  }
  return found;
}

/** A company's organ or its people, before "of" and the company's name. */
const ORGAN_OF =
  /\b(?:board|directors|committee|stockholders|shareholders|members|officers?|employees?|subsidiary|subsidiaries|affiliates?|division) of$/i;

const DETERMINER_BEFORE =
  /(?:^|\s)(?:a|an|the|any|its|their|each|such|every|no|either|neither|other|our|your|his|her|all)\s$/i;
/** A kind of company, not a company: "AFFILIATED COMPANY", "Holding Company", "Group Company". */
const GENERIC_COMPANY =
  /^(?:affiliated|related|parent|holding|group|subsidiary|operating|successor|subcontractor|member|associated|controlling|controlled|acquiring|surviving|management) (?:company|companies|corporation|entity)$/i;

/** Words that never belong to an organization's name but often stand right before it. */
const NOT_ORGANIZATION =
  /^(?:and|or|between|among|by|with|to|from|of|for|at|in|contact|attention|attn|certificate|agreement|statement|exhibit|schedule|supplier|purchaser|buyer|seller|customer|client|vendor|provider|licensor|licensee|company|product|products|ceo|cfo|coo|president|officer|director|manager|secretary|title|name|by:|name:)$/i;

/**
 * The organization's own words at the end of `name` ("Purchaser Northwind Analytics, Inc." →
 * "Northwind Analytics, Inc."; "Oded Gilboa INTELLISENSE SOLUTIONS, INC." → the upper-case name).
 */
function trimOrganization(name: string): string {
  const words = name.split(' ');
  let first = words.length - 1;
  const upper = (w: string) => w === w.toUpperCase();
  // Upper case or not is read off the name's own words, not its suffix ("Acme Services, LLC").
  let own = first;
  while (own > 0 && (isEntitySuffix(words[own]!) || !/\p{L}/u.test(words[own]!))) own -= 1;
  const allUpper = upper(words[own]!) && /[A-Z]{2}/.test(words[own]!);
  while (first > 0) {
    const previous = words[first - 1]!;
    // "Boston Safe Deposit and Trust Company": entityBefore kept an "and" only inside a name.
    const innerAnd =
      previous === 'and' &&
      first > 1 &&
      isInnerAnd(
        words[first - 2]!,
        words.slice(first).map((text) => ({ text })),
      );
    // "Sears, Roebuck and Co.": the "and" of a firm named for its founders.
    const foundersAnd =
      previous === 'and' &&
      first > 2 &&
      words[first - 3]!.endsWith(',') &&
      foundersAhead(
        words.slice(first - 3, first + 2).map((text) => ({ text })),
        0,
      );
    if (NOT_ORGANIZATION.test(previous) && !innerAnd && !foundersAnd) break;
    // An upper-case name stops at mixed case; a mixed-case one at a word in capitals (an office, a heading).
    if (allUpper ? !upper(previous) : upper(previous) && previous.length > 3 && /^[A-Z]+$/.test(previous))
      break;
    first -= 1;
  }
  return words.slice(first).join(' ');
}

/** What sets a unit's institution after it: ", part of the", ", faisant partie de la", ", Teil der". */
const PART_OF =
  /, (?:part of|a (?:unit|division|department|faculty|school|centre|center|institute) of|faisant partie (?:de la|de l['’]|du|des|de)|(?:ein )?Teil (?:der|des)|eine Einrichtung (?:der|des)|(?:eine )?Abteilung (?:der|des))\s(?:the\s)?/gu;
/** The article or preposition a unit's name follows ("of the", "du", "des"), last in the stretch before it. */
const NAME_LEAD = /(?:^|\s)(?:of|the|by|du|de la|de l['’]|des|der|dem)(?=\s)/gu;
/** A blank's first character: an angle bracket, a square bracket, a brace, a guillemet, a rule. */
const BLANK_OPENER = /^[<[{«_]/;
/** How long a unit's or an institution's name may be. */
const MAX_UNIT_NAME = 100;
/**
 * A unit named with the institution it is part of, set off by commas: "the Centre for Brain
 * Imaging Research, part of the Northvale Medical University, established at …", "du Unité de
 * neuroimagerie clinique, faisant partie de la Institut Valmont de recherche biomédicale, …",
 * "des Zentrums für Bildgebung, Teil der Universität Nordstadt, …", "the Clinical Research Unit, a
 * division of the Eastbrook Hospital, …". A data use or research agreement names the department
 * that holds the data and the institution it belongs to (the institution is the legal person that
 * contracts, its unit the one that acts). Both are this deal's when each holds the head noun of an
 * institution or a unit (`namesInstitution`: University, Centre, Institut, Abteilung): "the
 * Premises, part of the Building" names neither. Each name starts with a capital and runs to the
 * next comma or parenthesis (French and German names go on in lower case), at most 100 characters.
 */
export function unitsOf(line: Span): Candidate[] {
  const found: Candidate[] = [];
  for (const m of line.text.matchAll(PART_OF)) {
    const from = Math.max(0, m.index - MAX_UNIT_NAME - 10);
    // The nearest lead after which a unit's name stands: "of the Department of Cognitive
    // Neuroscience" is read from "Department", a unit's name holding "of" itself.
    const leads = [...line.text.slice(from, m.index).matchAll(NAME_LEAD)].map(
      (lead) => from + lead.index + lead[0].length + 1,
    );
    const unitAt = leads.findLast((at) => namesInstitution(line.text.slice(at, m.index))) ?? -1;
    const institutionAt = m.index + m[0].length;
    const rest = line.text.slice(institutionAt, institutionAt + MAX_UNIT_NAME + 1);
    const stop = rest.search(/[,;()]|\.?$/);
    // No comma or parenthesis within reach, and the line goes on: no name's end found.
    if (stop >= MAX_UNIT_NAME) continue;
    const unit = unitAt < 0 ? '' : line.text.slice(unitAt, m.index).trim();
    const institution = rest.slice(0, stop).trim();
    if (!/^\p{Lu}/u.test(unit) || /[,;()]/.test(unit) || !namesInstitution(unit)) continue;
    const department: Candidate = {
      type: 'party',
      name: 'department',
      named: true,
      text: unit,
      index: line.index + unitAt,
      slot: true,
    };
    // A draft that still leaves the institution blank ("part of the <INSTITUTION>", "[University]")
    // has written its unit: the unit is the deal's.
    if (BLANK_OPENER.test(institution)) found.push(department);
    if (!/^\p{Lu}/u.test(institution) || !namesInstitution(institution)) continue;
    found.push(department, {
      type: 'party',
      name: 'institution',
      named: true,
      text: institution,
      index: line.index + institutionAt,
      slot: true,
    });
  }
  return found;
}
