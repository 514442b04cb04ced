import type { AnalysedContract } from '../../domain/contracts/contract-variable.ts';
import {
  DocumentTooLarge,
  DocumentTooSlow,
  ExtractorBusy,
  UnreadableDocument,
} from '../../domain/contracts/document-failures.ts';
import type { ContractFormat, DocumentToRead, TextExtractor } from '../../domain/ports/text-extractor.ts';
import { moduleBeside, WarmWorkers, WorkerTaskFailed } from '../warm-workers.ts';
import { FairLine } from './fair-line.ts';
import type { PdfBounds } from './pdf-text.ts';

export interface ExtractionFailure {
  kind: 'unreadable' | 'too-large';
  reason: string;
}

export interface WorkerTextExtractorOptions {
  /** Documents read at once (one worker thread each). */
  concurrency: number;
  /** Documents that may wait for a reader; past it, `ExtractorBusy`. */
  maxQueued: number;
  /**
   * Of those, what one organization's documents may hold: readers, and places in the line
   * (default: half of each, rounded up); past either, `ExtractorBusy` with `share`.
   */
  readersPerOrganization?: number;
  queuedPerOrganization?: number;
  /** Per document, from the moment its worker starts (waiting does not count). */
  timeoutMs: number;
  /** Memory of each worker thread (its heap and the buffers it allocates), in MB. */
  workerMemoryMb: number;
  /** Longest text analysed, in characters. */
  maxTextChars: number;
  /** Most a DOCX may inflate to (officeparser's zip-bomb guard), and a PDF's streams, in bytes. */
  maxExpandedBytes: number;
  /** Most XML elements a DOCX may hold (officeparser reads about 25,000 a second). */
  maxXmlElements: number;
  /** Most one PDF stream may decode to, in bytes. */
  maxStreamBytes: number;
  /** Most operators and operands a PDF may hold (pdf.js reads about 400,000 a second). */
  maxTokens: number;
  /** Most pages a PDF may have. */
  maxPages: number;
  /** A warm reader left unused this long exits (default 30 s). */
  idleMs?: number;
}

/** What a reader may spend on one document (the worker's `workerData`). */
export interface ReaderBounds {
  maxTextChars: number;
  maxExpandedBytes: number;
  maxXmlElements: number;
  pdf: PdfBounds;
}

/** One document for the worker (extract-worker.ts): its bytes, and its format as the import judged it. */
export interface WorkerTask {
  bytes: Uint8Array;
  format: ContractFormat;
}

/** The worker's answer to one document (extract-worker.ts). */
export type WorkerAnswer = ({ ok: true } & AnalysedContract) | ({ ok: false } & ExtractionFailure);

/** The extractor, and what tests may observe of its readers. */
export interface WorkerTextExtractor extends TextExtractor {
  /**
   * Its worker threads: how many were started so far (a warm one is reused, so this does not grow
   * with each document) and how many wait, warm, for a document.
   */
  readers(): { started: number; idle: number };
  close(): Promise<void>;
}

/**
 * officeparser, pdf.js and the offline analysis (domain/contracts/analysis/) in worker threads, at most `concurrency` at once
 * and `maxQueued` documents waiting, one organization's at most its share of each (fair-line.ts),
 * each document stopped after `timeoutMs` or when its reader holds more than `workerMemoryMb`
 * (its heap, bounded by V8, and the ArrayBuffers it allocates, checked by the main thread: pdf.js
 * keeps decoded streams in them). The event loop stays free for other requests.
 *
 * A reader is kept warm between documents: loading officeparser, pdf.js and the analysis costs
 * about as much as reading a 20-page document, so it is paid once per thread rather than per
 * document. A reader that failed in any way (timeout, out of memory, an error, a refused
 * document) is stopped, never reused: the next document gets a fresh one, so nothing of one
 * document can reach another's answer. A reader left idle for `idleMs` exits.
 */
export function createWorkerTextExtractor(options: WorkerTextExtractorOptions): WorkerTextExtractor {
  const line = new FairLine({
    concurrency: options.concurrency,
    maxQueued: options.maxQueued,
    perOrganization: options.readersPerOrganization ?? Math.ceil(options.concurrency / 2),
    queuedPerOrganization: options.queuedPerOrganization ?? Math.ceil(options.maxQueued / 2),
  });
  const bounds: ReaderBounds = {
    maxTextChars: options.maxTextChars,
    maxExpandedBytes: options.maxExpandedBytes,
    maxXmlElements: options.maxXmlElements,
    pdf: {
      maxStreamBytes: options.maxStreamBytes,
      maxDecodedBytes: options.maxExpandedBytes,
      maxTokens: options.maxTokens,
      maxPages: options.maxPages,
    },
  };
  // Never more than `concurrency` readers: one per place at work in the line.
  const readers = new WarmWorkers({
    url: moduleBeside(import.meta.url, 'extract-worker'),
    workerData: bounds,
    resourceLimits: {
      maxOldGenerationSizeMb: options.workerMemoryMb,
      maxYoungGenerationSizeMb: 32,
      stackSizeMb: 4,
    },
    memoryLimitBytes: options.workerMemoryMb * 1024 * 1024,
    idleMs: options.idleMs,
  });

  async function read(task: WorkerTask): Promise<AnalysedContract> {
    let answer: WorkerAnswer;
    try {
      answer = await readers.run<WorkerAnswer>(task, {
        timeoutMs: options.timeoutMs,
        // Moved, not copied (see extractText).
        transfer: [task.bytes.buffer as ArrayBuffer],
        reusable: (message) => message.ok,
      });
    } catch (error) {
      if (!(error instanceof WorkerTaskFailed)) throw error;
      if (error.kind === 'timeout')
        throw new DocumentTooSlow(`reading it took longer than ${options.timeoutMs} ms`);
      if (error.kind === 'memory' || error.code === 'ERR_WORKER_OUT_OF_MEMORY')
        throw new DocumentTooLarge(`reading it needs more than ${options.workerMemoryMb} MB of memory`);
      throw new UnreadableDocument(error.kind === 'exit' ? `the reader ${error.message}` : error.message);
    }
    if (answer.ok) return { text: answer.text, variables: answer.variables };
    if (answer.kind === 'too-large') throw new DocumentTooLarge(answer.reason);
    throw new UnreadableDocument(answer.reason);
  }

  return {
    readers: () => readers.counts(),
    queued: () => line.waiting,
    extractText(bytes: Buffer, { format, organizationId }: DocumentToRead) {
      // Busy when every reader is at work and the waiting line is full, or when the
      // organization holds its share of both: with DOCUMENT_QUEUE_MAX=0 a document still
      // gets a free reader, it just never waits for one.
      const refused = line.refusal(organizationId);
      if (refused) return Promise.reject(new ExtractorBusy(refused));
      // Move the bytes to the worker rather than copy them, when they own their memory
      // (a small Buffer may be a slice of Node's shared pool, which must not be moved).
      const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
      const view = owned ? new Uint8Array(bytes.buffer) : new Uint8Array(bytes);
      return line.run(organizationId, () => read({ bytes: view, format }));
    },
    close: () => readers.close(),
  };
}
