import type { Finding } from '../findings.ts';
import { isPlausibleName, toSnakeCase } from './names.ts';

/**
 * Merge fields written between a pair of the same marks, as mail-merge and scripting tools write
 * them: `%%COMPANY_NAME%%` (e-mail and CRM merge tags), `$CLIENT_NAME$` and `#CLIENT_NAME#`
 * (report and document generators' field codes), `__START_DATE__` (scripts that fill a document
 * by search and replace). Only an identifier stands between the marks: a name in capitals or in
 * snake_case (`$notice_period$`, `__start_date__`), never a figure (`$5$`), words or one word in
 * lower case, so prices, Markdown's bold (`__Notice__`) and Python's names (`__init__`) are not
 * read. Each candidate reads at most 60 characters after its start, and
 * no start is inside a run of the marks: linear.
 */
const MERGE_FIELD =
  /(?<![\w%$#])(?:%%([A-Za-z][A-Za-z0-9_]{0,59})%%|\$([A-Z][A-Z0-9_]{1,59}|[a-z][a-z0-9]{0,29}(?:_[a-z0-9]{1,29}){1,5})\$|#([A-Z][A-Z0-9_]{1,59})#|__([A-Z][A-Z0-9]{0,29}(?:_[A-Z0-9]{1,29}){0,5}|[A-Za-z][A-Za-z0-9]{0,29}(?:_[A-Za-z0-9]{1,29}){1,5})__)(?![\w%$#])/g;

export function scanMergeFields(text: string): Finding[] {
  const found: Finding[] = [];
  for (const m of text.matchAll(MERGE_FIELD)) {
    const name = toSnakeCase(m[1] ?? m[2] ?? m[3] ?? m[4]!);
    if (isPlausibleName(name)) found.push({ index: m.index, name, kind: 'placeholder', text: m[0] });
  }
  return found;
}
