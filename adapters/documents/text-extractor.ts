import PQueue from 'p-queue';
import {
  DocumentTooLarge,
  DocumentTooSlow,
  ExtractorBusy,
  UnreadableDocument,
} from '../../domain/contracts/document-failures.ts';
import type { ExtractedText, TextExtractor } from '../../domain/ports/text-extractor.ts';
import { moduleBeside, WarmWorkers, WorkerTaskFailed } from '../warm-workers.ts';

export interface ExtractionFailure {
  kind: 'unreadable' | 'too-large';
  reason: string;
}

export interface WorkerTextExtractorOptions {
  /** Documents read at once (one worker thread each). */
  concurrency: number;
  /** Documents that may wait for a reader; past it, `ExtractorBusy`. */
  maxQueued: number;
  /** Per document, from the moment its worker starts (waiting does not count). */
  timeoutMs: number;
  /** Heap of each worker thread (V8 old generation), in MB. */
  workerMemoryMb: number;
  /** Longest text analysed, in characters. */
  maxTextChars: number;
  /** Most a DOCX may inflate to (officeparser's zip-bomb guard), in bytes. */
  maxExpandedBytes: number;
  /** A warm reader left unused this long exits (default 30 s). */
  idleMs?: number;
}

/** The worker's answer to one document (extract-worker.ts). */
export type WorkerAnswer = ({ ok: true } & ExtractedText) | ({ ok: false } & ExtractionFailure);

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
 * officeparser and the offline analysis in worker threads, at most `concurrency` at once and
 * `maxQueued` documents waiting (p-queue), each document stopped after `timeoutMs` or when its
 * reader outgrows its heap. The event loop stays free for other requests.
 *
 * A reader is kept warm between documents: loading officeparser, pdf.js and the analysis costs
 * about as much as reading a 20-page document, so it is paid once per thread rather than per
 * document. A reader that failed in any way (timeout, out of memory, an error, a refused
 * document) is stopped, never reused: the next document gets a fresh one, so nothing of one
 * document can reach another's answer. A reader left idle for `idleMs` exits.
 */
export function createWorkerTextExtractor(options: WorkerTextExtractorOptions): WorkerTextExtractor {
  const queue = new PQueue({ concurrency: options.concurrency });
  // Never more than `concurrency` readers: one per queue slot.
  const readers = new WarmWorkers({
    url: moduleBeside(import.meta.url, 'extract-worker'),
    workerData: { maxTextChars: options.maxTextChars, maxExpandedBytes: options.maxExpandedBytes },
    resourceLimits: {
      maxOldGenerationSizeMb: options.workerMemoryMb,
      maxYoungGenerationSizeMb: 32,
      stackSizeMb: 4,
    },
    idleMs: options.idleMs,
  });

  async function read(view: Uint8Array): Promise<ExtractedText> {
    let answer: WorkerAnswer;
    try {
      answer = await readers.run<WorkerAnswer>(view, {
        timeoutMs: options.timeoutMs,
        // Moved, not copied (see extractText).
        transfer: [view.buffer as ArrayBuffer],
        reusable: (message) => message.ok,
      });
    } catch (error) {
      if (!(error instanceof WorkerTaskFailed)) throw error;
      if (error.kind === 'timeout')
        throw new DocumentTooSlow(`reading it took longer than ${options.timeoutMs} ms`);
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY')
        throw new DocumentTooLarge(`reading it needs more than ${options.workerMemoryMb} MB of memory`);
      throw new UnreadableDocument(error.kind === 'exit' ? `the reader ${error.message}` : error.message);
    }
    if (answer.ok) return { text: answer.text, variables: answer.variables };
    if (answer.kind === 'too-large') throw new DocumentTooLarge(answer.reason);
    throw new UnreadableDocument(answer.reason);
  }

  return {
    readers: () => readers.counts(),
    queued: () => queue.size,
    extractText(bytes) {
      // Busy only when every reader is at work and the waiting line is full: with
      // DOCUMENT_QUEUE_MAX=0 a document still gets a free reader, it just never waits for one.
      if (queue.pending >= options.concurrency && queue.size >= options.maxQueued) {
        return Promise.reject(new ExtractorBusy());
      }
      // Move the bytes to the worker rather than copy them, when they own their memory
      // (a small Buffer may be a slice of Node's shared pool, which must not be moved).
      const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
      const view = owned ? new Uint8Array(bytes.buffer) : new Uint8Array(bytes);
      return queue.add(() => read(view)) as Promise<ExtractedText>;
    },
    close: () => readers.close(),
  };
}
