// Runs in a worker thread: parsing a 10 MB document, and analysing its text,
// take long enough to stall every other request if they ran on the main event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { parseOffice } from 'officeparser';
import { analyzeOffline } from './offline-analysis.ts';
import type { ExtractionFailure } from './text-extractor.ts';

const { bytes, maxTextChars, maxExpandedBytes } = workerData as {
  bytes: Uint8Array;
  maxTextChars: number;
  maxExpandedBytes: number;
};

/** officeparser's codes for a document bigger inside than its limits allow. */
const TOO_LARGE_CODES = new Set([
  'ZIP_SIZE_LIMIT_EXCEEDED',
  'ZIP_ENTRY_COUNT_LIMIT_EXCEEDED',
  'XML_ELEMENT_LIMIT_EXCEEDED',
  'OUTPUT_TOO_LARGE',
  'PDF_PROCESS_FAILED',
]);

function fail(failure: ExtractionFailure) {
  parentPort!.postMessage({ ok: false, ...failure });
}

try {
  // A view of the transferred bytes, not a copy.
  const document = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ast = await parseOffice(document, {
    decompressionLimits: { maxUncompressedBytes: maxExpandedBytes },
  });
  const value = (await ast.to('text')).value;
  const text = typeof value === 'string' ? value : String(value);
  if (text.length > maxTextChars) {
    fail({ kind: 'too-large', reason: `its text is longer than ${maxTextChars} characters` });
  } else {
    parentPort!.postMessage({ ok: true, text, variables: analyzeOffline(text, []) });
  }
} catch (error) {
  const code = (error as { officeIssue?: { code?: string } }).officeIssue?.code;
  if (code && TOO_LARGE_CODES.has(code)) {
    fail({
      kind: 'too-large',
      reason: `it expands past what can be read (${maxExpandedBytes} bytes, or too many parts)`,
    });
  } else {
    fail({ kind: 'unreadable', reason: error instanceof Error ? error.message : String(error) });
  }
}
