import { Worker } from 'node:worker_threads';
import PQueue from 'p-queue';
import {
  DocumentTooLarge,
  DocumentTooSlow,
  ExtractorBusy,
  UnreadableDocument,
} from '../../domain/contracts/document-failures.ts';
import type { ExtractedText, TextExtractor } from '../../domain/ports/text-extractor.ts';

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

/** A warm reader left unused this long is stopped, so an idle service does not hold its memory. */
const IDLE_MS = 30_000;

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
  const workerUrl = new URL('./extract-worker.ts', import.meta.url);
  const idleMs = options.idleMs ?? IDLE_MS;
  /** Warm readers and the timer that stops each; never more than `concurrency` (one per queue slot). */
  const idle = new Map<Worker, NodeJS.Timeout>();
  let started = 0;
  let closed = false;

  function startReader(): Worker {
    const worker = new Worker(workerUrl, {
      workerData: { maxTextChars: options.maxTextChars, maxExpandedBytes: options.maxExpandedBytes },
      resourceLimits: {
        maxOldGenerationSizeMb: options.workerMemoryMb,
        maxYoungGenerationSizeMb: 32,
        stackSizeMb: 4,
      },
    });
    started += 1;
    // An idle reader must not keep the process alive (a document at work keeps its request open).
    worker.unref();
    // A reader that stops while idle is forgotten; an 'error' with no listener would throw here.
    worker.on('error', () => {});
    worker.once('exit', () => forget(worker));
    return worker;
  }

  function forget(worker: Worker) {
    clearTimeout(idle.get(worker));
    idle.delete(worker);
  }

  function takeReader(): Worker {
    const [warm] = idle.keys();
    if (!warm) return startReader();
    forget(warm);
    return warm;
  }

  function putBack(worker: Worker) {
    if (closed) {
      void worker.terminate();
      return;
    }
    const timer = setTimeout(() => {
      forget(worker);
      void worker.terminate();
    }, idleMs);
    timer.unref();
    idle.set(worker, timer);
  }

  function read(view: Uint8Array): Promise<ExtractedText> {
    const worker = takeReader();
    return new Promise<ExtractedText>((resolve, reject) => {
      const settle = (outcome: () => void, reusable = false) => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (reusable) putBack(worker);
        else void worker.terminate();
        outcome();
      };
      const timer = setTimeout(() => {
        settle(() => reject(new DocumentTooSlow(`reading it took longer than ${options.timeoutMs} ms`)));
      }, options.timeoutMs);
      const onMessage = (message: WorkerAnswer) => {
        if (message.ok) settle(() => resolve({ text: message.text, variables: message.variables }), true);
        else if (message.kind === 'too-large') settle(() => reject(new DocumentTooLarge(message.reason)));
        else settle(() => reject(new UnreadableDocument(message.reason)));
      };
      const onError = (error: Error & { code?: string }) => {
        settle(() =>
          reject(
            error.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? new DocumentTooLarge(`reading it needs more than ${options.workerMemoryMb} MB of memory`)
              : new UnreadableDocument(error.message),
          ),
        );
      };
      const onExit = (code: number) => {
        settle(() => reject(new UnreadableDocument(`the reader stopped (exit code ${code})`)));
      };
      worker.once('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
      // Moved, not copied (see extractText).
      worker.postMessage(view, [view.buffer as ArrayBuffer]);
    });
  }

  return {
    readers: () => ({ started, idle: idle.size }),
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
    async close() {
      closed = true;
      const readers = [...idle.keys()];
      for (const worker of readers) forget(worker);
      await Promise.all(readers.map((worker) => worker.terminate()));
    },
  };
}
