import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import PDFDocument from 'pdfkit';
import { ExportFailed, type RenderedExport, type RenderRequest } from '../../domain/ports/deck-exporter.ts';
import { FAMILIES, type FontWeight, fontRuns } from './fonts.ts';
import { type ImageBox, imageLabel, type LayoutPage, PAGE, type TextBox } from './layout/boxes.ts';
import { baselineOf, lineStartOf } from './layout/text.ts';
import { layoutDeck } from './layout.ts';

/** Page pixels (1920 wide) to PDF points: a 960 × 540 pt page, PowerPoint's 13.33 × 7.5 in. */
const S = 0.5;
/** What pdfkit draws (it embeds JPEG as is and decodes PNG; nothing else). */
const DRAWN = new Set(['png', 'jpg']);
// A URL written in a text: made clickable where it is drawn. Linear (a prefix, then one class).
const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"]+/g;

type Doc = InstanceType<typeof PDFDocument>;
const fontName = (family: string, weight: FontWeight) => `${family} ${weight}`;

/**
 * The deck as PDF (pdfkit; decision 075): one 16:9 page per layout page, the text real text in
 * the bundled fonts (embedded as subsets, so it is selectable and searchable), the CTA button and
 * every URL written in a text clickable, one bookmark per page.
 */
export async function renderPdf(request: RenderRequest): Promise<RenderedExport> {
  const { snapshot, signal } = request;
  signal.throwIfAborted();
  const layout = layoutDeck(snapshot);
  const warnings = [...layout.warnings];
  const filePath = join(request.workDir, 'deck.pdf');
  const doc = new PDFDocument({
    autoFirstPage: false,
    size: [PAGE.width * S, PAGE.height * S],
    margin: 0,
    displayTitle: true,
    lang: 'en',
    info: { Title: snapshot.deckName, Creator: 'deck service' },
  });
  for (const family of FAMILIES) {
    for (const weight of [400, 700] as const)
      doc.registerFont(fontName(family.family, weight), family.files[weight]);
  }
  const out = createWriteStream(filePath);
  doc.pipe(out);
  try {
    for (const [i, page] of layout.pages.entries()) {
      signal.throwIfAborted();
      drawPage(doc, page, warnings);
      doc.outline.addItem(page.title);
      request.onProgress(i + 1, layout.pages.length);
      // Let an abort (and the thread's other messages) in between pages.
      await new Promise((resolve) => setImmediate(resolve));
    }
    doc.end();
    await finished(out);
  } catch (error) {
    out.destroy();
    if (signal.aborted) throw signal.reason;
    throw error instanceof ExportFailed
      ? error
      : new ExportFailed('the PDF could not be written', { cause: error });
  }
  return { filePath, contentType: 'application/pdf', extension: 'pdf', warnings };
}

function drawPage(doc: Doc, page: LayoutPage, warnings: string[]): void {
  doc.addPage();
  doc.rect(0, 0, PAGE.width * S, PAGE.height * S).fill(page.background);
  for (const box of page.boxes) {
    if (box.kind === 'rect') {
      const shape = doc.roundedRect(box.x * S, box.y * S, box.w * S, box.h * S, box.radius * S);
      if (box.stroke) shape.lineWidth(2 * S).fillAndStroke(box.fill, box.stroke);
      else shape.fill(box.fill);
      if (box.link) doc.link(box.x * S, box.y * S, box.w * S, box.h * S, box.link);
    } else if (box.kind === 'image') drawImage(doc, box, page, warnings);
    else drawText(doc, box);
  }
}

function drawImage(doc: Doc, box: ImageBox, page: LayoutPage, warnings: string[]): void {
  if (!DRAWN.has(box.format)) {
    warnings.push(`${imageLabel(page, box)} (${box.format}) left out of the PDF, which shows PNG and JPEG`);
    return;
  }
  try {
    doc.image(box.path, box.x * S, box.y * S, { width: box.w * S, height: box.h * S });
  } catch {
    warnings.push(`${imageLabel(page, box)} does not decode as an image: left out`);
  }
}

/** The width pdfkit gives `text` (shaped, run by run in the fonts that draw it). */
function widthOf(doc: Doc, text: string, box: TextBox): number {
  let width = 0;
  for (const run of fontRuns(text, box.weight)) {
    width += doc
      .font(fontName(run.family, box.weight))
      .fontSize(box.fontSize * S)
      .widthOfString(run.text);
  }
  return width;
}

function drawText(doc: Doc, box: TextBox): void {
  doc.fillColor(box.color);
  for (const [i, line] of box.lines.entries()) {
    const baseline = baselineOf(box, i) * S;
    const start = lineStartOf(box, widthOf(doc, line, box) / S) * S;
    let x = start;
    for (const run of fontRuns(line, box.weight)) {
      doc.font(fontName(run.family, box.weight)).fontSize(box.fontSize * S);
      doc.text(run.text, x, baseline, { lineBreak: false, baseline: 'alphabetic' });
      x += doc.widthOfString(run.text);
    }
    for (const match of line.matchAll(URL_IN_TEXT)) {
      const url = withoutTrailingPunctuation(match[0]);
      const left = start + widthOf(doc, line.slice(0, match.index), box);
      const top = baseline - box.fontSize * S;
      doc.link(left, top, widthOf(doc, url, box), box.lineHeight * S, url);
    }
  }
  if (box.link) doc.link(box.x * S, box.y * S, box.w * S, box.h * S, box.link);
}

/** A URL as a sentence writes it, without the full stop (or comma, bracket…) after it. */
function withoutTrailingPunctuation(url: string): string {
  let end = url.length;
  while (end > 0 && '.,;:!?)'.includes(url[end - 1] ?? '')) end--;
  return url.slice(0, end);
}
