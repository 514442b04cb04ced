import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { deflateRawSync, constants as zlibConstants } from 'node:zlib';
import { unzipSync, zipSync } from 'fflate';
import { parseOffice } from 'officeparser';
import PDFDocument from 'pdfkit';
import { expect } from 'vitest';
import type { HttpClient } from './http-client.ts';
import { projectRoot } from './processes.ts';

const execFileAsync = promisify(execFile);

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

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/** XML text with `&`, `<` and `>` escaped. */
export const xmlText = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A paragraph of runs (a string is one run), with optional paragraph properties. */
export const wp = (runs: string | string[], properties = '') =>
  `<w:p>${properties ? `<w:pPr>${properties}</w:pPr>` : ''}${(Array.isArray(runs) ? runs : [runs])
    .map((run) =>
      run.startsWith('<w:') ? run : `<w:r><w:t xml:space="preserve">${xmlText(run)}</w:t></w:r>`,
    )
    .join('')}</w:p>`;

/** A bordered table whose rows are lists of cells, each cell's paragraphs given as XML or text. */
export function wtable(rows: (string | string[])[][], widths: number[]): string {
  const border = (side: string) => `<w:${side} w:val="single" w:sz="4" w:space="0" w:color="000000"/>`;
  const borders = ['top', 'left', 'bottom', 'right', 'insideH', 'insideV'].map(border).join('');
  const cell = (content: string | string[], width: number) =>
    `<w:tc><w:tcPr><w:tcW w:w="${width}" w:type="dxa"/></w:tcPr>${(Array.isArray(content)
      ? content
      : [content]
    )
      .map((p) => (p.startsWith('<w:p') ? p : wp(p)))
      .join('')}</w:tc>`;
  return `<w:tbl><w:tblPr><w:tblW w:w="${widths.reduce((a, b) => a + b)}" w:type="dxa"/><w:tblBorders>${borders}</w:tblBorders></w:tblPr><w:tblGrid>${widths
    .map((w) => `<w:gridCol w:w="${w}"/>`)
    .join('')}</w:tblGrid>${rows
    .map((row) => `<w:tr>${row.map((content, i) => cell(content, widths[i]!)).join('')}</w:tr>`)
    .join('')}</w:tbl>`;
}

/**
 * Numbering for lists: list 1 numbers `1.`, `2.` with `(a)`, `(b)` below (Word numbers them
 * when it prints; the numbers are not in document.xml).
 */
export const DECIMAL_LIST_NUMBERING = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:numbering xmlns:w="${W}"><w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="720" w:hanging="360"/></w:pPr></w:lvl><w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="(%2)"/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="1440" w:hanging="360"/></w:pPr></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>`;

/** A list item's paragraph properties (list 1 of DECIMAL_LIST_NUMBERING, at `level`). */
export const listItem = (level: number) =>
  `<w:numPr><w:ilvl w:val="${level}"/><w:numId w:val="1"/></w:numPr>`;

/** A real DOCX whose body is `body` (WordprocessingML), with a numbering part when given. */
export function docxWithBody(body: string, options: { numbering?: string } = {}): Buffer {
  const numbering = options.numbering
    ? '<Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/>'
    : '';
  const files: Record<string, Uint8Array> = {
    '[Content_Types].xml': Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>${numbering}</Types>`,
    ),
    '_rels/.rels': Buffer.from(
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    ),
    'word/_rels/document.xml.rels': Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${options.numbering ? '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>' : ''}</Relationships>`,
    ),
    'word/document.xml': Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}" xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml"><w:body>${body}<w:sectPr><w:pgSz w:w="12240" w:h="15840"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="720" w:footer="720" w:gutter="0"/></w:sectPr></w:body></w:document>`,
    ),
  };
  if (options.numbering) files['word/numbering.xml'] = Buffer.from(options.numbering);
  return Buffer.from(zipSync(files, { level: 9 }));
}

/**
 * The PDFs LibreOffice prints from DOCX files (by name), as a user who "saves as PDF" does.
 * One `soffice` run for all of them, with a profile of its own (parallel runs do not share one).
 */
export async function printedByLibreOffice(docxs: Record<string, Buffer>): Promise<Record<string, Buffer>> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'deck-soffice-'));
  try {
    const names = Object.keys(docxs);
    for (const name of names) writeFileSync(path.join(dir, `${name}.docx`), docxs[name]!);
    await execFileAsync(
      'soffice',
      [
        `-env:UserInstallation=${pathToFileURL(path.join(dir, 'profile')).href}`,
        '--headless',
        '--convert-to',
        'pdf',
        '--outdir',
        path.join(dir, 'pdf'),
        ...names.map((name) => path.join(dir, `${name}.docx`)),
      ],
      { timeout: 240_000 },
    );
    return Object.fromEntries(
      names.map((name) => [name, readFileSync(path.join(dir, 'pdf', `${name}.pdf`))]),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A fillable PDF (pdfkit's AcroForm): `text` on the page, then each field under a label. */
export function fillablePdf(
  text: string,
  fields: { name: string; kind: 'text' | 'checkbox' }[],
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument();
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.font('Helvetica');
    doc.initForm();
    doc.text(text);
    for (const field of fields) {
      const y = doc.y + 10;
      if (field.kind === 'text') doc.formText(field.name, 72, y, 200, 20);
      else doc.formCheckbox(field.name, 72, y, 12, 12);
      doc.y = y + 30;
    }
    doc.end();
  });
}

/**
 * A short agreement as people write them: a title, a preamble with placeholders, a key-terms
 * table (labels and values, a placeholder or a filled-in value in each), a numbered list with
 * a level below it and an item long enough to wrap, a no-break space and curly quotes.
 */
export function keyTermsDocx(): Buffer {
  const clause =
    'The Customer shall pay the [Monthly Fee] within thirty days of each invoice, and the Provider may suspend the Services after written notice if an undisputed amount stays unpaid for more than sixty days after its due date.';
  const body = [
    wp('Master Services Agreement', '<w:jc w:val="center"/><w:rPr><w:b/><w:sz w:val="32"/></w:rPr>'),
    wp([
      'This Master Services Agreement (the “Agreement”) is made between ',
      '[Customer Name]',
      ' and {{provider_name}} (the “Provider”).',
    ]),
    wp('Key Terms'),
    wtable(
      [
        ['Effective Date', '{effective_date}'],
        ['Fees', '[Monthly Fee] per month'],
        ['Initial Term', '12 months'],
        [['Governing Law', 'Where disputes are heard'], '{governing_law}'],
        ['Customer Signatory', '<<Signatory Name>>'],
      ],
      [3000, 6000],
    ),
    wp('Obligations'),
    wp(clause, listItem(0)),
    wp('The Provider shall:', listItem(0)),
    wp('keep the Services available as the {sla_document} sets out;', listItem(1)),
    wp('answer support requests within one business day.', listItem(1)),
    wp('Either party may end this Agreement on 30\u00A0days’ notice to {notice_email}.', listItem(0)),
    wp('Signed by ________ on behalf of [Customer Name].'),
  ].join('');
  return docxWithBody(body, { numbering: DECIMAL_LIST_NUMBERING });
}

/**
 * A DOCX with form fields: content controls (one named by its tag, one by its alias only,
 * one empty showing Word's prompt) and merge fields (simple and complex).
 */
export function formFieldsDocx(): Buffer {
  const control = (properties: string, shown: string) =>
    `<w:sdt><w:sdtPr>${properties}</w:sdtPr><w:sdtContent><w:r><w:t xml:space="preserve">${xmlText(shown)}</w:t></w:r></w:sdtContent></w:sdt>`;
  const run = (text: string) => `<w:r><w:t xml:space="preserve">${xmlText(text)}</w:t></w:r>`;
  const body = [
    wp([
      run('This agreement is between '),
      control('<w:alias w:val="Client Name"/><w:tag w:val="client_legal_name"/>', 'Acme Corporation'),
      run(' and '),
      control('<w:alias w:val="Supplier Name"/>', 'Globex Ltd'),
      run('.'),
    ]),
    wp([
      run('Start date: '),
      control('<w:tag w:val="startDate"/><w:showingPlcHdr/>', 'Click or tap to enter a date.'),
    ]),
    wp([
      run('Dear '),
      `<w:fldSimple w:instr=" MERGEFIELD FirstName \\* MERGEFORMAT "><w:r><w:t>«FirstName»</w:t></w:r></w:fldSimple>`,
      run(' '),
      '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> MERGEFIELD "Last Name" </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>',
      run('«Last Name»'),
      '<w:r><w:fldChar w:fldCharType="end"/></w:r>',
      run(','),
    ]),
    wp('The total is due on delivery.'),
  ].join('');
  return docxWithBody(body);
}

/**
 * A one-page PDF holding `text`, then `count` text items of one letter each, drawn one by one
 * (raw operators: pdfkit's text() lays out each call, far too slowly for 100,000).
 */
export function pdfWithManyItems(text: string, count: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: [600, 600], margin: 0 });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.font('Helvetica').fontSize(8).text(text, 50, 100);
    const font = (doc as unknown as { _font: { id: string } })._font.id;
    const operators = [`BT /${font} 2 Tf`];
    for (let i = 0; i < count; i += 1) {
      operators.push(
        `1 0 0 1 ${((i % 500) * 1.2).toFixed(1)} ${(20 + Math.floor(i / 500) * 1.4).toFixed(1)} Tm (a) Tj`,
      );
    }
    operators.push('ET');
    doc.addContent(operators.join('\n'));
    doc.end();
  });
}

/**
 * A PDF written by hand: `objects` are numbered from 1 (the first is the catalog), with a
 * correct cross-reference table. A stream is given as its dictionary's entries and its bytes.
 */
export function rawPdf(objects: (string | { dict: string; data: Uint8Array })[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xE2\xE3\xCF\xD3\n', 'latin1')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  const push = (part: Buffer) => {
    parts.push(part);
    length += part.length;
  };
  objects.forEach((object, i) => {
    offsets.push(length);
    if (typeof object === 'string') {
      push(Buffer.from(`${i + 1} 0 obj\n${object}\nendobj\n`, 'latin1'));
    } else {
      push(Buffer.from(`${i + 1} 0 obj\n<< ${object.dict} /Length ${object.data.length} >>\nstream\n`));
      push(Buffer.from(object.data));
      push(Buffer.from('\nendstream\nendobj\n'));
    }
  });
  const xref = length;
  const rows = offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  push(
    Buffer.from(
      `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${rows}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`,
    ),
  );
  return Buffer.concat(parts);
}

/**
 * A zlib stream that inflates to `unit` repeated to `bytes` (a multiple of 1 MiB), then `tail`,
 * built without ever holding them: one 1 MiB block, compressed on its own (it refers to nothing
 * before it) and flushed to a byte boundary, repeated, then the tail's block, an empty last
 * block and the checksum.
 */
export function deflateBomb(unit: string, bytes: number, tail = ''): Buffer {
  const MiB = 1024 * 1024;
  if (bytes % MiB || MiB % unit.length) throw new Error('whole MiB of a unit that divides one');
  const block = deflateRawSync(Buffer.from(unit.repeat(MiB / unit.length), 'latin1'), {
    level: 9,
    finishFlush: zlibConstants.Z_SYNC_FLUSH,
  });
  // Adler-32 of the repeated text, from its definition (A: 1 + the sum of the bytes; B: the sum of the As).
  const MOD = 65521n;
  const codes = [...Buffer.from(unit, 'latin1')].map(BigInt);
  const n = BigInt(bytes / unit.length);
  const unitSum = codes.reduce((a, b) => a + b, 0n);
  // Over the whole text, byte j (0-based, of N) adds its value to A and (N - j) times its value to B.
  const N = BigInt(bytes);
  let b = N; // the initial A of 1, counted in each of the N B sums
  const length = BigInt(unit.length);
  codes.forEach((code, k) => {
    // Byte k of copy m stands at j = m·L + k: Σ over m of (N − m·L − k) = n(N − k) − L·n(n−1)/2.
    b += code * (n * (N - BigInt(k)) - (length * n * (n - 1n)) / 2n);
  });
  let a = (1n + unitSum * n) % MOD;
  b %= MOD;
  for (const code of Buffer.from(tail, 'latin1')) {
    a = (a + BigInt(code)) % MOD;
    b = (b + a) % MOD;
  }
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(Number((b << 16n) | a));
  const tailBlock = tail
    ? deflateRawSync(Buffer.from(tail, 'latin1'), { finishFlush: zlibConstants.Z_SYNC_FLUSH })
    : Buffer.alloc(0);
  return Buffer.concat([
    Buffer.from([0x78, 0xda]),
    ...Array.from({ length: bytes / MiB }, () => block),
    tailBlock,
    Buffer.from([0x03, 0x00]),
    checksum,
  ]);
}

/**
 * A one-page PDF whose page shows `text` and then draws `content`, a stream encoded by `filter`
 * (each further content is another stream of the page).
 */
export function pdfWithContent(text: string, content: Buffer | Buffer[], filter = '/FlateDecode'): Buffer {
  const streams = Array.isArray(content) ? content : [content];
  return pdfWithStreams(
    text,
    streams.map((data) => ({ dict: `/Filter ${filter}`, data })),
  );
}

/** A PDF whose page shows `text`, then the content of `streams`, each with its dictionary's entries (`/Length` added). */
export function pdfWithStreams(text: string, streams: { dict: string; data: Buffer }[]): Buffer {
  const shown = `BT /F1 12 Tf 72 720 Td (${text.replace(/[()\\]/g, '\\$&')}) Tj ET\n`;
  const refs = streams.map((_, i) => `${6 + i} 0 R`).join(' ');
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents [5 0 R ${refs}] >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    { dict: '', data: Buffer.from(shown, 'latin1') },
    ...streams,
  ]);
}

/** A PDF of `pages` empty pages, the first showing `text`. */
export function pdfWithPages(text: string, pages: number): Buffer {
  const shown = `BT /F1 12 Tf 72 720 Td (${text.replace(/[()\\]/g, '\\$&')}) Tj ET\n`;
  const first = 5;
  const kids = Array.from({ length: pages }, (_, i) => `${first + i} 0 R`).join(' ');
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    { dict: '', data: Buffer.from(shown, 'latin1') },
    ...Array.from(
      { length: pages },
      (_, i) =>
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >>${i === 0 ? ' /Contents 4 0 R' : ''} >>`,
    ),
  ]);
}

/** A DOCX whose body holds `depth` content controls, each inside the one before, around `text`. */
export function docxWithNestedControls(text: string, depth: number): Buffer {
  const open = '<w:sdt><w:sdtPr><w:tag w:val="t"/></w:sdtPr><w:sdtContent>';
  const close = '</w:sdtContent></w:sdt>';
  return docxWithBody(`${wp(text)}${open.repeat(depth)}${wp('x')}${close.repeat(depth)}`);
}

/** A DOCX whose paragraph begins `count` complex fields and ends none, after `text`. */
export function docxWithUnendedFields(text: string, count: number): Buffer {
  const begin = '<w:r><w:fldChar w:fldCharType="begin"/></w:r>';
  return docxWithBody(`${wp(text)}<w:p>${begin.repeat(count)}<w:r><w:t>x</w:t></w:r></w:p>`);
}

/**
 * An encrypted PDF (an owner password only, so anyone may open it, as many "secured" contracts
 * are) showing `text`, whose page then holds `spaces` spaces: its streams are ciphertext in the
 * file, so their decoded size shows only once a reader has decrypted them.
 */
export function encryptedPdfWithSpaces(text: string, spaces: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ ownerPassword: 'owner', permissions: { printing: 'highResolution' } });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.text(text);
    doc.addContent(' '.repeat(spaces));
    doc.end();
  });
}

/** A real Word document: each item a paragraph, or a table's rows (cells `widths` twips wide). */
export const paragraphsAndTables = (items: (string | string[][])[], widths = [3000, 6000]) =>
  docxWithBody(items.map((item) => (typeof item === 'string' ? wp(item) : wtable(item, widths))).join(''));

/** One variable of a contract import's answer. */
export interface ImportedVariable {
  name: string;
  kind: string;
  text: string;
}

/** The variables `POST /api/contracts/import` answers for a file (a 200 is expected). */
export async function importedVariables(
  user: HttpClient,
  name: string,
  bytes: Buffer,
): Promise<ImportedVariable[]> {
  const response = await user.upload('/api/contracts/import', { name, bytes });
  expect(response.status, response.text).toBe(200);
  return response.body.variables;
}

/** The answer as `[kind, name, text]` rows, white space in `text` collapsed (a PDF wraps long lines). */
export const asRows = (variables: ImportedVariable[]) =>
  variables.map((v) => [v.kind, v.name, v.text.replace(/\s+/g, ' ')]);
