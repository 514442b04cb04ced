import { readFileSync } from 'node:fs';
import path from 'node:path';
import { unzipSync, zipSync } from 'fflate';
import { parseOffice } from 'officeparser';
import PDFDocument from 'pdfkit';
import { projectRoot } from './processes.ts';

export const fixturesDir = path.resolve(projectRoot, '../shared/fixtures/contracts');

/** A real PDF (pdfkit) holding `text`; `userPassword` makes it encrypted. */
export function pdf(text: string, options: PDFKit.PDFDocumentOptions = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument(options);
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.text(text);
    doc.end();
  });
}

/**
 * A fixture template: its DOCX, its text (table padding collapsed: the text renders tables
 * as space-padded columns, which a PDF would wrap apart), and the metadata fields that occur
 * in that text, in text order.
 */
export async function contractFixture(name: string) {
  const docx = readFileSync(path.join(fixturesDir, `${name}.docx`));
  const layout = (await (await parseOffice(docx)).to('text')).value as string;
  const text = layout
    .split('\n')
    .map((line) => line.replace(/[|\s]+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
  const metadata = readFileSync(path.join(fixturesDir, `${name}.metadata.yaml`), 'utf8');
  const fields = [...metadata.matchAll(/^ {2}- name: (\w+)$/gm)].map((m) => m[1]!);
  const present = fields
    .filter((field) => text.includes(`{${field}}`))
    .sort((a, b) => text.indexOf(`{${a}}`) - text.indexOf(`{${b}}`));
  return { docx, text, present };
}

/** A fixture DOCX with its body repeated `times` over: a large, real Word document. */
export function enlargedDocx(name: string, times: number): Buffer {
  const files = unzipSync(readFileSync(path.join(fixturesDir, `${name}.docx`)));
  const xml = Buffer.from(files['word/document.xml']!).toString('utf8');
  const body = xml.match(/<w:body>([\s\S]*?)(<w:sectPr[\s\S]*)?<\/w:body>/)!;
  const repeated = Array.from({ length: times }, () => body[1]).join('');
  files['word/document.xml'] = Buffer.from(xml.replace(body[1]!, repeated));
  return Buffer.from(zipSync(files));
}
