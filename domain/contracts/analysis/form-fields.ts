import type { FormField } from './extracted-document.ts';
import type { Finding } from './findings.ts';
import { toSnakeCase } from './placeholders.ts';

/** A form field's variable name: snake_case, starting with a letter; '' when nothing is left. */
export function fieldName(raw: string): string {
  const name = toSnakeCase(raw);
  if (!name) return '';
  return /^[a-z]/.test(name) ? name : `field_${name}`.slice(0, 64);
}

/**
 * A document's form fields as placeholders, in their order:
 * - a DOCX's field where its shown text first stands (after the field before it, when it is
 *   there too); one whose shown text is not in the text (an empty control) is left out;
 * - a PDF's field, which stands at no place of the text, under its name as the form gives it,
 *   as many times as it has widgets, at an index below 0 (before every finding of the text, and
 *   kept in order).
 * A field with nothing to name it by is left out.
 */
export function formFieldFindings(text: string, fields: readonly FormField[]): Finding[] {
  const findings: Finding[] = [];
  const widgetFields = fields.filter((field) => 'widgets' in field).length;
  let below = -widgetFields;
  let from = 0;
  for (const field of fields) {
    const name = fieldName(field.name);
    if ('widgets' in field) {
      const index = below;
      below += 1;
      if (name) {
        findings.push({ name, kind: 'placeholder', text: field.name, index, occurrences: field.widgets });
      }
      continue;
    }
    if (!name || !field.shown) continue;
    let index = text.indexOf(field.shown, from);
    if (index < 0) index = text.indexOf(field.shown);
    if (index < 0) continue;
    findings.push({ name, kind: 'placeholder', text: field.shown, index });
    from = index + field.shown.length;
  }
  return findings;
}
