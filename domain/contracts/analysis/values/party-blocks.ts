/**
 * Parties a contract names outside its preamble: the company a signature block signs for, and
 * the person and company a letter agreement is addressed to.
 */
import type { Candidate } from './candidate.ts';
import { NOT_PARTY_WORDS } from './definitions.ts';
import type { Span } from './lines.ts';
import { nameAt } from './names.ts';
import type { Party } from './parties.ts';

const BY_LINE = /^By\b/;

/**
 * The party a signature block signs for, named on the line above its "By:" line ("HYPERION
 * MINING" / "By: /s/ Jane Roe"): a company signs through an officer, and the block names the
 * company first, often in capitals and without the preamble's spelling. Read on a signature
 * page only; a role label ("COMPANY:", "EXECUTIVE") or a defined term is not a name.
 */
export function signingParty(
  line: Span,
  next: Span | undefined,
  parties: readonly Party[],
): Candidate | null {
  if (!next || !BY_LINE.test(next.text) || line.text.length > 120 || line.text.endsWith(':')) return null;
  const name = nameAt(line.text);
  if (name?.start !== 0 || name.text.length !== line.text.replace(/[.,]$/, '').length) return null;
  // Two words at least ("HYPERION MINING"), or a company's legal form ("Acme, Inc.").
  if (!name.entity && name.words < 2) return null;
  if (parties.some((p) => p.term === name.text || p.nickname === name.text)) return null;
  if (NOT_PARTY_WORDS.has(name.text.split(' ').at(-1)!.toLowerCase())) return null;
  const lower = name.text.toLowerCase();
  const party = parties.find((p) => p.name.toLowerCase() === lower);
  return {
    type: 'party',
    name: party ? `${party.role}_name` : 'organization_name',
    named: party !== undefined,
    text: name.text,
    index: line.index,
  };
}

/**
 * A letter's salutation: "Dear Ed:", "Dear Mr. Monser,", and the one of a letter to a company,
 * "Ladies and Gentlemen:", "Gentlemen:", "To Whom It May Concern:".
 */
const SALUTATION = /^(?:Dear\s\S|(?:Ladies and )?Gentlemen\s?[:,]|To Whom It May Concern\b)/i;
/** Words of an office or a department, not of a person's name ("Corporate Development Director"). */
const OFFICE_WORDS =
  /\b(?:director|president|treasurer|officer|secretary|counsel|manager|group|partner|principal|department|banking|confidential)$/i;

/** A person's name as an inside address writes it: no "&" or "and", not in capitals, no office. */
function isPersonName(text: string): boolean {
  return !/&|\band\b/i.test(text) && text !== text.toUpperCase() && !OFFICE_WORDS.test(text);
}

/** A letter's date on its own line: "November 24, 2009", "December 11,2014", "5/4/09". */
const LETTER_DATE = /^(?:[A-Z][a-z]{2,8}\.? \d{1,2}, ?\d{4}|\d{1,2}\/\d{1,2}\/\d{2,4})$/;
/** How many lines above the salutation the addressee's block may start. */
const ADDRESS_BLOCK_LINES = 8;

/**
 * The person and the company a letter agreement is addressed to: the lines of the inside address
 * above the salutation ("Edward L. Monser" / "8000 West Florissant Ave." / "St. Louis, MO 63136" /
 * "Dear Ed:"; "JAB Beech Inc." / "2200 Pennsylvania Avenue, NW" / … / "Ladies and Gentlemen:").
 * A business letter puts the recipient's name, title and company, then the street address, between
 * its date and its salutation; letter agreements (offer letters, the confidentiality letters of a
 * sale of a company, signed by the bidder under "Accepted and agreed") name the other party there
 * and nowhere else before the signature. The person's name and the company's name (a whole line
 * ending with its legal form) nearest the salutation are taken. Read in the first `lines` given.
 */
export function addressee(lines: readonly Span[]): Candidate[] {
  const salutation = lines.findIndex((line) => SALUTATION.test(line.text));
  if (salutation < 0) return [];
  const found: Candidate[] = [];
  let person = false;
  let company = false;
  // Upwards from the salutation to the letter's date, which opens the block.
  for (let i = salutation - 1; i >= Math.max(0, salutation - ADDRESS_BLOCK_LINES); i -= 1) {
    const line = lines[i]!;
    if (LETTER_DATE.test(line.text)) break;
    if (/^(?:Re|RE|Attention|Attn|ATTN)\b/.test(line.text)) continue;
    const name = nameAt(line.text);
    // "Non-Disclosure Agreement": the letter's heading, not a name.
    if (name?.start !== 0 || NOT_PARTY_WORDS.has(name.text.split(' ').at(-1)!.toLowerCase())) continue;
    const rest = line.text.slice(name.text.length);
    // "GTCR LLC", "Fortune Brands Home & Security, Inc.": the whole line a company's name.
    if (name.entity && !company && /^[.,]?$/.test(rest)) {
      company = true;
      found.push({
        type: 'party',
        name: 'addressee_company_name',
        named: true,
        text: name.text,
        index: line.index,
      });
      continue;
    }
    // The whole line a person's name of two to five words ("Eugene Wright, III", "Mr. John Roe").
    if (
      person ||
      name.entity ||
      name.words < 2 ||
      name.words > 5 ||
      !/^(?:,? (?:Jr\.|Sr\.|I{2,3}|IV))?$/.test(rest) ||
      /\d/.test(line.text) ||
      !isPersonName(name.text)
    )
      continue;
    person = true;
    found.push({ type: 'party', name: 'addressee_name', named: true, text: line.text, index: line.index });
  }
  return found;
}
