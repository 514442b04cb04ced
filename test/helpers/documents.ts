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
  // The body's content up to its section properties (found by position: a pattern with two
  // open-ended groups here backtracks polynomially).
  const start = xml.indexOf('<w:body>') + '<w:body>'.length;
  const end = xml.indexOf('</w:body>', start);
  const section = xml.indexOf('<w:sectPr', start);
  const contentEnd = section >= 0 && section < end ? section : end;
  const repeated = xml.slice(start, contentEnd).repeat(times);
  files['word/document.xml'] = Buffer.from(xml.slice(0, start) + repeated + xml.slice(contentEnd));
  return Buffer.from(zipSync(files));
}

/** A minimal DOCX (a real Word document, as small as one can be) whose one paragraph is `text`. */
export function docxWithText(text: string): Buffer {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const files = {
    '[Content_Types].xml': Buffer.from(
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ),
    '_rels/.rels': Buffer.from(
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    ),
    'word/document.xml': Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t xml:space="preserve">${escaped}</w:t></w:r></w:p></w:body></w:document>`,
    ),
  };
  return Buffer.from(zipSync(files, { level: 9 }));
}
