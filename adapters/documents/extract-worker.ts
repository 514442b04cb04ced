// Runs in a worker thread: parsing a 10 MB document, and analysing its text (the domain's
// analysis, domain/contracts/analysis/), take long enough to stall every other request if they
// ran on the main event loop.
// The thread is kept warm (text-extractor.ts): it reads one document per message, one at a
// time, and answers each with one message; loading its libraries is paid once per thread.
import { parentPort, workerData } from 'node:worker_threads';
import { parseOffice } from 'officeparser';
import type { ExtractedDocument } from '../../domain/contracts/analysis/extracted-document.ts';
import { analyzeContract } from '../../domain/contracts/analysis/offline-analysis.ts';
import { docxLines } from './docx-text.ts';
import { docxFields } from './form-fields.ts';
import { PastBound, readPdf } from './pdf-text.ts';
import type { ReaderBounds, WorkerAnswer, WorkerTask } from './text-extractor.ts';
import { joinLines } from './text-format.ts';

const { maxTextChars, maxExpandedBytes, maxXmlElements, pdf: pdfBounds } = workerData as ReaderBounds;

/** officeparser's codes for a document bigger inside than its limits allow. */
const TOO_LARGE_CODES = new Set([
  'ZIP_SIZE_LIMIT_EXCEEDED',
  'ZIP_ENTRY_COUNT_LIMIT_EXCEEDED',
  'XML_ELEMENT_LIMIT_EXCEEDED',
  'OUTPUT_TOO_LARGE',
]);

/** What a document is to the analysis, and whether its text was cut at `maxTextChars`. */
type Read = ExtractedDocument & { tooLong: boolean };

/** The text and the form fields of a DOCX. */
async function readDocx(document: Buffer): Promise<Read> {
  const ast = await parseOffice(document, {
    // Reading costs about 40 µs an element (xmldom, then officeparser's walk): 100,000 empty
    // fields in a 14 KB file took 8 to 27 s under officeparser's own limit of 2,000,000.
    decompressionLimits: { maxUncompressedBytes: maxExpandedBytes, maxXmlElements },
  });
  const text = joinLines(docxLines(ast.content), maxTextChars);
  const tooLong = text.length > maxTextChars;
  const fields = tooLong ? [] : fieldsOf(document);
  return { text, formFields: fields, tooLong };
}

/**
 * The DOCX's form fields: an addition to its text, so a part fflate or xmldom cannot read (one
 * officeparser read) leaves the document without fields rather than refused.
 */
function fieldsOf(document: Buffer) {
  try {
    return docxFields(document, maxExpandedBytes);
  } catch {
    return [];
  }
}

async function readPdfDocument(document: Buffer): Promise<Read> {
  const pdf = await readPdf(document, maxTextChars, pdfBounds);
  const text = joinLines(pdf.lines, maxTextChars);
  return { text, formFields: pdf.formFields, tooLong: pdf.tooLong || text.length > maxTextChars };
}

/** One document's answer: its text and variables, or why it was not read. */
async function extract({ bytes, format }: WorkerTask): Promise<WorkerAnswer> {
  try {
    // A view of the transferred bytes, not a copy.
    const document = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    // The import judged the format by the bytes (domain/contracts/contracts.ts).
    const { tooLong, ...extracted } = await (format === 'pdf' ? readPdfDocument : readDocx)(document);
    if (tooLong) {
      return { ok: false, kind: 'too-large', reason: `its text is longer than ${maxTextChars} characters` };
    }
    return { ok: true, text: extracted.text, variables: analyzeContract(extracted) };
  } catch (error) {
    if (error instanceof PastBound) return { ok: false, kind: 'too-large', reason: error.message };
    const code = (error as { officeIssue?: { code?: string } }).officeIssue?.code;
    if (code && TOO_LARGE_CODES.has(code)) {
      return {
        ok: false,
        kind: 'too-large',
        reason: `it expands past what can be read (${maxExpandedBytes} bytes, ${maxXmlElements} XML elements, or too many parts)`,
      };
    }
    return { ok: false, kind: 'unreadable', reason: error instanceof Error ? error.message : String(error) };
  }
}

parentPort!.on('message', async (task: WorkerTask) => {
  parentPort!.postMessage(await extract(task));
});
