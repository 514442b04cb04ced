/**
 * The placeholders of a contract template, with no network, each where it stands in the text:
 * - template tags: `{name}`, `${name}`, `{{ name | filter }}`, `{{name.field}}`, `<Name>`, `<snake_name>`, `<<Name>>`, `«Name»`,
 *   `+++INS name+++`, and the subjects of directives (`{IF x}`, `{{#each items}}`,
 *   `{% for d in items %}` …: `condition` and `list` variables), in `placeholders/template-tags.ts`;
 * - square brackets: `[Company Name]`, `[[Company Name]]`, descriptions of any length, `[________]`, `[●]`,
 *   `$[___]`, `[      ]`, `$[ ]`, but no citations, checkboxes, links, editorial notes or optional clauses, in
 *   `placeholders/brackets.ts`;
 * - labelled blanks: `Effective Date: ________`, `Governing Law\t________`, write-in boxes
 *   drawn with corner marks (`Name: ⎣_____⎦`, `⎣__`), and blanks shaped like a date or a phone
 *   number (`____ day of ________, 20__`, `__/__/____`, `(___) ___-____`), and blanks of an
 *   ellipsis or dots after a label (`Functie: …`, `Nom : ..........`), in `placeholders/blanks.ts`;
 * - merge fields between a pair of marks: `%%NAME%%`, `$NAME$`, `#NAME#`, `__NAME__`, in
 *   `placeholders/merge-fields.ts`.
 * Names are snake_case (`placeholders/names.ts`). Every scan is linear in the text: contracts
 * are user input.
 */
import type { Finding } from './findings.ts';
import {
  scanCornerBlanks,
  scanDottedBlanks,
  scanShapedBlanks,
  scanUnderscoreBlanks,
} from './placeholders/blanks.ts';
import { scanBrackets } from './placeholders/brackets.ts';
import { scanMergeFields } from './placeholders/merge-fields.ts';
import { scanTemplateTags } from './placeholders/template-tags.ts';

export { toSnakeCase } from './placeholders/names.ts';

export function scanPlaceholders(text: string): Finding[] {
  return [
    ...scanTemplateTags(text),
    ...scanBrackets(text),
    ...scanUnderscoreBlanks(text),
    ...scanCornerBlanks(text),
    ...scanShapedBlanks(text),
    ...scanDottedBlanks(text),
    ...scanMergeFields(text),
  ].sort((a, b) => a.index - b.index);
}
