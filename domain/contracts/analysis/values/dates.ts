/**
 * Dates as contracts write them, read by chrono-node's parsers: English everywhere, and French,
 * German, Spanish, Italian, Dutch and Portuguese where their month names stand
 * (docs/decisions/091-dates-in-six-languages.md). Only a date with a named month and a year, or
 * written in numbers, is a deal's date; a relative one ("within 30 days") is a duration.
 */
import * as de from 'chrono-node/de';
import * as chrono from 'chrono-node/en';
import * as es from 'chrono-node/es';
import * as fr from 'chrono-node/fr';
import * as it from 'chrono-node/it';
import * as nl from 'chrono-node/nl';
import * as pt from 'chrono-node/pt';

const MONTH = /jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec/i;
/**
 * Contracts in French, German, Spanish, Italian, Dutch and Portuguese write their dates with the
 * month's name ("3 mars 2026", "3. März 2026", "3 de marzo de 2026"): each language's chrono
 * parser reads a window only when one of its month names stands there, so an English contract
 * costs one test of a pattern per window.
 */
const OTHER_LANGUAGES: { parser: typeof chrono.casual; months: RegExp }[] = [
  {
    parser: fr.casual,
    months:
      /(?<!\p{L})(?:janvier|f[ée]vrier|mars|avril|mai|juin|juillet|ao[uû]t|septembre|octobre|novembre|d[ée]cembre)(?!\p{L})/iu,
  },
  {
    parser: de.casual,
    // April, August, September and November are English too: German writes its day with a full
    // stop before them ("1. April 2026"), which chrono's English parser leaves out.
    months:
      /(?<!\p{L})(?:Januar|Jänner|Februar|März|Mai|Juni|Juli|Oktober|Dezember)(?!\p{L})|\d\. ?(?:April|August|September|November)(?!\p{L})/iu,
  },
  {
    parser: es.casual,
    months:
      /(?<!\p{L})(?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre) de(?!\p{L})/iu,
  },
  {
    parser: it.casual,
    months:
      /(?<!\p{L})(?:gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|agosto|settembre|ottobre|novembre|dicembre)(?!\p{L})/iu,
  },
  // April, september, november and december are read by the English parser.
  {
    parser: nl.casual,
    months: /(?<!\p{L})(?:januari|februari|maart|mei|juni|juli|augustus|oktober)(?!\p{L})/iu,
  },
  {
    parser: pt.casual,
    months:
      /(?<!\p{L})(?:janeiro|fevereiro|março|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro) de(?!\p{L})/iu,
  },
];
/**
 * "1st day of March, 2026": chrono reads the month and year; the day before them is the date's too
 * (its ordinal suffix maybe split from it, or letter-spaced: see `SPLIT_ORDINAL`).
 */
const DAY_OF = /(?<![\w])\d{1,2}(?: ?(?:st|nd|rd|th)|s t|n d|r d|t h)? day of $/i;
/**
 * An ordinal suffix a PDF reader split from its day ("December 9 th , 2014", "the 5 th day of May"):
 * word processors set a date's ordinal suffix as a superscript (Word's AutoFormat "Ordinals (1st)
 * with superscript", on by default), which a PDF prints as a run of its own, and the reader puts a
 * space before it. chrono reads the day only with its suffix attached.
 */
const SPLIT_ORDINAL = /(?<![\w])(\d{1,2}) (st|nd|rd|th)(?![\w])/gi;
/** What joins the two dates of a range chrono reads as one. */
const RANGE_JOINERS = [' to ', ' through ', ' until ', ' - ', ' – ', ' and '];

/** How much of a line chrono reads at once: its refiners look back over all it was given. */
const CHRONO_WINDOW = 2_000;
const CHRONO_OVERLAP = 100;

/**
 * Dates with a month (named or numbered): chrono's relative dates ("within 30 days") are
 * durations. A long line is read in overlapping windows cut at spaces (chrono is quadratic in
 * what it is given: a line of 40,000 dates took seconds).
 */
export function dates(line: string): { start: number; end: number }[] {
  const found: { start: number; end: number }[] = [];
  const seen = new Set<number>();
  for (let from = 0; from < line.length; ) {
    let to = Math.min(line.length, from + CHRONO_WINDOW);
    if (to < line.length) {
      const space = line.lastIndexOf(' ', to);
      if (space > from + CHRONO_WINDOW / 2) to = space;
    }
    // The suffix moved next to its day, the space after it: the same length, so offsets hold.
    const window = line.slice(from, to).replace(SPLIT_ORDINAL, '$1$2 ');
    const parsers = [
      chrono.casual,
      ...OTHER_LANGUAGES.filter((l) => l.months.test(window)).map((l) => l.parser),
    ];
    for (const result of parsers.flatMap((parser) => parser.parse(window))) {
      for (const part of rangeParts(result.text)) {
        const date = oneDate(line, from + result.index + part.start, part.text);
        if (date && !seen.has(date.start)) {
          seen.add(date.start);
          found.push(date);
        }
      }
    }
    if (to >= line.length) break;
    from = Math.max(from + 1, to - CHRONO_OVERLAP);
  }
  return outermost(found);
}

/**
 * The dates no other date holds: two languages' parsers may read the same date, one of them only
 * its month and year ("1. Juli 2026": the German parser reads it whole, the Dutch "Juli 2026").
 */
function outermost(dates: { start: number; end: number }[]): { start: number; end: number }[] {
  const sorted = dates.toSorted((a, b) => a.start - b.start || b.end - a.end);
  let end = -1;
  return sorted.filter((date) => {
    if (date.end <= end) return false;
    end = date.end;
    return true;
  });
}

/** A range ("February 8, 2018 to May 3, 2018") is two dates. */
function rangeParts(text: string): { start: number; text: string }[] {
  for (const joiner of RANGE_JOINERS) {
    const at = text.indexOf(joiner);
    if (at > 0)
      return [
        { start: 0, text: text.slice(0, at) },
        { start: at + joiner.length, text: text.slice(at + joiner.length) },
      ];
  }
  return [{ start: 0, text }];
}

/**
 * Before the date a legal act was adopted, as the EU cites its acts ("Directive 95/46/EC of the
 * European Parliament and of the Council of 24 October 1995", "… en de Raad van 24 oktober 1995",
 * "… des Rates vom 24. Oktober 1995", "… du Conseil du 24 octobre 1995"): the law's date, the same
 * in every contract that cites it, not the deal's.
 */
const ADOPTED_BY =
  /\b(?:Council|Commission|Raad|Commissie|Rates|Kommission|Conseil|Consejo|Comisión|Consiglio|Commissione|Conselho|Comissão) (?:of|van|vom|du|del|de|do) $/;

/** The date chrono read at `index`, without a leading preposition or a trailing time, or null. */
function oneDate(line: string, index: number, read: string): { start: number; end: number } | null {
  let text = read;
  let start = index;
  // "April 30, 2018 at 11:59pm": the time is not the date's; nor is the comma that sets the time
  // off ("December 31, 2008, at 12:00 PM": a date's year is followed by a comma in running
  // text, Chicago Manual of Style 6.38), it is the sentence's.
  const time = text.indexOf(' at ');
  if (time > 0) text = text.slice(0, text[time - 1] === ',' ? time - 1 : time);
  // chrono includes a leading "on" or "the" in what it read; the value is the date.
  // So does a French, German, Italian, Spanish, Dutch or Portuguese parser its "le", "am", "il" ….
  const lead = /^(?:on|the|of|from|by|dated|as of|le|du|au|am|vom|il|el|del|op|em)\s/i.exec(text);
  if (lead) {
    start += lead[0].length;
    text = text.slice(lead[0].length);
  }
  const numeric = /^\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}$/.test(text);
  // A named month with a year: "March 31" alone recurs every year, it is no deal's date.
  const named =
    (MONTH.test(text) || OTHER_LANGUAGES.some((l) => l.months.test(text))) && /\d{4}|'\d\d/.test(text);
  if (!numeric && !named) return null;
  if (ADOPTED_BY.test(line.slice(Math.max(0, start - 30), start))) return null;
  const end = start + text.length;
  const dayOf = DAY_OF.exec(line.slice(Math.max(0, start - 20), start));
  if (dayOf) start -= dayOf[0].length;
  return { start, end };
}
