/**
 * The variables of a contract as its placeholders name them, with no network: `{name}`,
 * `{{name}}`, `[Company Name]`, `<<Company>>`, `«MergeField»`, and labelled blanks
 * (`Effective Date: ________`). Returned in snake_case, each once, in order of first
 * appearance.
 */
const PATTERNS: RegExp[] = [
  /\{\{\s*([A-Za-z][\w .-]{0,60}?)\s*\}\}/g,
  /(?<!\{)\{\s*([A-Za-z][\w .-]{0,60}?)\s*\}(?!\})/g,
  /<<\s*([A-Za-z][\w .-]{0,60}?)\s*>>/g,
  /«\s*([A-Za-z][\w .-]{0,60}?)\s*»/g,
  // [Company Name]: words, not citations ([1]), checkboxes ([ ], [x]) or links ([text](url)).
  /\[\s*([A-Za-z][A-Za-z0-9 ,.'&/-]{1,60}?)\s*\](?!\()/g,
  // A label and a blank to fill: "Effective Date: ________" or "Name ______".
  /(?:^|[\n\t]|\s{2,}|[.;])\s*([A-Z][A-Za-z0-9'/&() -]{1,50}?)\s*:?\s*_{3,}/g,
];

export function detectPlaceholders(text: string): string[] {
  const found: { index: number; name: string }[] = [];
  for (const pattern of PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      const name = toSnakeCase(match[1]!);
      if (name && isPlausibleName(name))
        found.push({ index: match.index + match[0].indexOf(match[1]!), name });
    }
  }
  found.sort((a, b) => a.index - b.index);
  return [...new Set(found.map((f) => f.name))];
}

/** `Company Name`, `companyName`, `Company-Name` → `company_name`. */
export function toSnakeCase(raw: string): string {
  return raw
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64);
}

/** At most six words, and not a lone letter or a number. */
function isPlausibleName(name: string): boolean {
  return /^[a-z]/.test(name) && name.length >= 2 && name.split('_').length <= 6;
}
