/**
 * Numbers written out in words before the figure in parentheses, as contracts write them:
 * "ten thousand dollars ($10,000)", "thirty (30) days", "fifteen percent (15%)". The words
 * change with the figure, so they belong to the value a person replaces.
 */
const NUMBER_WORDS = new Set(
  [
    'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen',
    'sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety',
    'hundred thousand million billion and a half quarter one-half no/100 00/100 /100',
  ]
    .join(' ')
    .split(' '),
);
/**
 * Units written between the words and the figure: "ten thousand U.S. dollars ($10,000)", and a
 * currency's ISO 4217 code, as international forms write it: "one thousand USD ($1,000.00)".
 */
const UNIT_WORDS = new Set([
  'usd',
  'eur',
  'gbp',
  'chf',
  'cad',
  'aud',
  'jpy',
  'francs',
  'yen',
  'dollars',
  'dollar',
  'u.s.',
  'us',
  'euros',
  'euro',
  'pounds',
  'sterling',
  'percent',
]);

function isNumberWord(word: string): boolean {
  // "twenty-five", "one-half": each part a number word.
  return word.split('-').every((part) => NUMBER_WORDS.has(part));
}

/**
 * Where the written-out number ending right before `end` starts in `line` (`end` is the
 * index of the opening parenthesis), or `end` itself when none stands there. Walks back word
 * by word (at most 12), so it is linear.
 */
export function wordsStart(line: string, end: number): number {
  let start = end;
  let cursor = end;
  let sawNumber = false;
  for (let words = 0; words < 12; words += 1) {
    while (cursor > 0 && line[cursor - 1] === ' ') cursor -= 1;
    let wordStart = cursor;
    while (wordStart > 0 && line[wordStart - 1] !== ' ') wordStart -= 1;
    const word = line.slice(wordStart, cursor).toLowerCase();
    if (!word) break;
    if (isNumberWord(word)) {
      sawNumber = true;
      start = wordStart;
    } else if (!(UNIT_WORDS.has(word) && !sawNumber)) {
      break;
    }
    cursor = wordStart;
  }
  if (!sawNumber) return end;
  // A leading "and" or "a" joins the number to what came before ("one and a half" keeps it).
  for (;;) {
    const space = line.indexOf(' ', start);
    const first = line.slice(start, space < 0 ? end : space).toLowerCase();
    if ((first === 'and' || first === 'a') && space >= 0 && space < end) start = space + 1;
    else return start;
  }
}

/**
 * A quantity: a figure in groups of three, then its unit of measure or the thing it counts
 * ("30,000 lbs", "7,458,575 shares", "12,500 units"). A contract writes the amount of goods it
 * sells, the shares a company may issue, the seats it licenses as such a figure, and the figure
 * is the deal's (UCC § 2-201 makes the quantity the one term a sale of goods must state). A unit
 * of measure goes with its figure, as a duration's does ("30,000 lbs"); a thing counted is the
 * contract's subject, the figure alone is the value ("7,458,575" shares). A figure under 1,000 is
 * too often a reference to be read so.
 */
const QUANTITY =
  /(?<![\d,.$€£])(\d{1,3}(?:,\d{3})+(?:\.\d{1,3})?)( (?:lbs|lb|pounds|kilograms|kg|metric tons|tons|tonnes|gallons|liters|litres|barrels|bushels|square feet|acres|hectares)| (?=(?:units|shares|copies|licenses|licences|seats)\b))/g;
export function quantities(line: string): { start: number; end: number }[] {
  return [...line.matchAll(QUANTITY)].map((m) => ({
    start: m.index,
    end: m.index + m[1]!.length + m[2]!.trimEnd().length,
  }));
}
