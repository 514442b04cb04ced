import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { WidgetField } from '../../domain/contracts/analysis/extracted-document.ts';
import { fieldName } from '../../domain/contracts/analysis/form-fields.ts';
import { type PdfPage, pdfLines, type TextItem } from './pdf-layout.ts';
import { type PdfStreamBounds, pdfPastBounds } from './pdf-streams.ts';

/** What a PDF may cost to read: its streams' decoded bytes and tokens, and its pages. */
export type PdfBounds = PdfStreamBounds;

/** A document past a bound: refused as too large, with why. */
export class PastBound extends Error {}

/** The text's lines and the form fields of a PDF. */
export interface PdfContent {
  lines: string[];
  formFields: WidgetField[];
  /** Set when the text was longer than the limit (what was read is cut there). */
  tooLong: boolean;
}

/**
 * pdf.js read directly (not through officeparser): the layout needs each text item with its
 * position, in the order the PDF draws them, and officeparser's PDF reader hands back
 * paragraphs it has already grouped by column (a table's labels before its values), which
 * would not read as the DOCX does. pdf.js bounds nothing itself: its streams are measured first
 * (pdf-streams.ts), its pages counted, and no more than `maxTextChars` characters of items are
 * read (a page's items streamed, the stream cancelled past the limit); the worker's memory
 * bound and timeout hold the rest. Throws `PastBound` past a bound.
 */
export async function readPdf(
  bytes: Uint8Array,
  maxTextChars: number,
  bounds: PdfBounds,
): Promise<PdfContent> {
  const past = await pdfPastBounds(bytes, bounds);
  if (past) throw new PastBound(past);
  const pdfjs = await loadPdfjs();
  const loading = pdfjs.getDocument({
    // pdf.js refuses a Buffer: a plain view of the same memory.
    data: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    verbosity: 0,
    disableFontFace: true,
    useSystemFonts: false,
    // Text only: no image is decoded.
    maxImageSize: 1,
  });
  try {
    const document = await loading.promise;
    if (document.numPages > bounds.maxPages) throw new PastBound(`it has more than ${bounds.maxPages} pages`);
    const pages: PdfPage[] = [];
    let chars = 0;
    let tooLong = false;
    for (let number = 1; number <= document.numPages && !tooLong; number += 1) {
      const page = await document.getPage(number);
      const items: TextItem[] = [];
      const reader = page.streamTextContent().getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        for (const item of (chunk.value as { items: unknown[] }).items) {
          if (!item || typeof item !== 'object' || !('str' in item)) continue;
          const text = item as { str: string; width: number; transform: number[] };
          const [a, b, c, d, x, y] = text.transform;
          items.push({
            str: text.str,
            x: x!,
            y: y!,
            width: text.width,
            size: Math.hypot(c!, d!) || Math.hypot(a!, b!),
          });
          chars += text.str.length;
          if (chars > maxTextChars) tooLong = true;
        }
        // Not cancelled: pdf.js then still enqueues the chunk in flight, into a closed stream, and
        // throws out of its message handler. Left unread, the page's reading waits on the stream
        // (100 items at most are buffered) until the document is destroyed below.
        if (tooLong) break;
      }
      const { width, height } = page.getViewport({ scale: 1 });
      pages.push({ items, width, height });
      page.cleanup();
    }
    return { lines: pdfLines(pages), formFields: await pdfFormFields(document), tooLong };
  } finally {
    await loading.destroy();
  }
}

type Pdfjs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjsModule: Promise<Pdfjs> | undefined;

function loadPdfjs(): Promise<Pdfjs> {
  pdfjsModule ??= (async () => {
    // pdf.js builds a DOMMatrix when it loads, to draw pages; Node has none, and text extraction
    // never draws, so an identity matrix is all it needs.
    const scope = globalThis as { DOMMatrix?: unknown };
    scope.DOMMatrix ??= class DOMMatrix {
      a = 1;
      b = 0;
      c = 0;
      d = 1;
      e = 0;
      f = 0;
    };
    const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
    // pdf.js's own worker runs in this thread (the extraction worker already is one).
    const require = createRequire(import.meta.url);
    pdfjs.GlobalWorkerOptions.workerSrc = pathToFileURL(
      require.resolve('pdfjs-dist/legacy/build/pdf.worker.mjs'),
    ).href;
    return pdfjs;
  })();
  return pdfjsModule;
}

/**
 * At most this many form fields are read (counting those the analysis can name: `fieldName`; each
 * becomes a variable, and answers hold 500 at most).
 */
const MAX_FIELDS = 1_000;

interface FieldWidget {
  type?: string;
  page?: number;
  rect?: number[];
}

/**
 * A fillable PDF's AcroForm fields, in the order they stand on the pages (top to bottom, left to
 * right), each with the number of places (widgets) it is shown. Buttons (push buttons, check
 * boxes, radio buttons) hold no text to fill and are left out; signature fields are kept.
 */
async function pdfFormFields(document: {
  getFieldObjects(): Promise<Record<string, unknown[]> | null>;
}): Promise<WidgetField[]> {
  const objects = await document.getFieldObjects();
  if (!objects) return [];
  const fields: { field: WidgetField; page: number; top: number; left: number }[] = [];
  for (const [name, entries] of Object.entries(objects)) {
    if (fields.length >= MAX_FIELDS) break;
    const widgets = (entries as FieldWidget[]).filter((entry) => entry.rect);
    const first = widgets[0] ?? (entries[0] as FieldWidget | undefined);
    if (!first || first.type === 'button' || first.type === 'checkbox' || first.type === 'radiobutton')
      continue;
    if (name && fieldName(name)) {
      const field = { name, widgets: Math.max(1, widgets.length) };
      fields.push({ field, page: first.page ?? 0, top: first.rect?.[3] ?? 0, left: first.rect?.[0] ?? 0 });
    }
  }
  fields.sort((a, b) => a.page - b.page || b.top - a.top || a.left - b.left);
  return fields.map(({ field }) => field);
}
