import { payloadTooLarge } from '../errors.ts';

/** Markdown fields are capped in UTF-8 bytes; past the cap the answer is 413, not 400. */
export const MARKDOWN_MAX_BYTES = 200 * 1024;

export function assertMarkdownSize(fields: Record<string, string | null | undefined>): void {
  for (const [field, value] of Object.entries(fields)) {
    if (value && Buffer.byteLength(value, 'utf8') > MARKDOWN_MAX_BYTES) {
      throw payloadTooLarge(`${field} is larger than ${MARKDOWN_MAX_BYTES / 1024} kB`);
    }
  }
}
