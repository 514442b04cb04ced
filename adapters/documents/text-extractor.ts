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
}

/**
 * officeparser and the offline analysis in a worker thread per document, at most
 * `concurrency` at once and `maxQueued` waiting (p-queue), each stopped after `timeoutMs` or
 * when it outgrows its heap. The event loop stays free for other requests.
 */
export function createWorkerTextExtractor(options: WorkerTextExtractorOptions): TextExtractor {
  const queue = new PQueue({ concurrency: options.concurrency });
  const workerUrl = new URL('./extract-worker.ts', import.meta.url);
  return {
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
      return queue.add(
        () =>
          new Promise<ExtractedText>((resolve, reject) => {
            const worker = new Worker(workerUrl, {
              workerData: {
                bytes: view,
                maxTextChars: options.maxTextChars,
                maxExpandedBytes: options.maxExpandedBytes,
              },
              transferList: [view.buffer as ArrayBuffer],
              resourceLimits: {
                maxOldGenerationSizeMb: options.workerMemoryMb,
                maxYoungGenerationSizeMb: 32,
                stackSizeMb: 4,
              },
            });
            let settled = false;
            const settle = (outcome: () => void) => {
              if (settled) return;
              settled = true;
              clearTimeout(timer);
              void worker.terminate();
              outcome();
            };
            const timer = setTimeout(() => {
              settle(() =>
                reject(new DocumentTooSlow(`reading it took longer than ${options.timeoutMs} ms`)),
              );
            }, options.timeoutMs);
            worker.once(
              'message',
              (message: ({ ok: true } & ExtractedText) | ({ ok: false } & ExtractionFailure)) => {
                settle(() => {
                  if (message.ok) resolve({ text: message.text, variables: message.variables });
                  else if (message.kind === 'too-large') reject(new DocumentTooLarge(message.reason));
                  else reject(new UnreadableDocument(message.reason));
                });
              },
            );
            worker.once('error', (error: Error & { code?: string }) => {
              settle(() =>
                reject(
                  error.code === 'ERR_WORKER_OUT_OF_MEMORY'
                    ? new DocumentTooLarge(
                        `reading it needs more than ${options.workerMemoryMb} MB of memory`,
                      )
                    : new UnreadableDocument(error.message),
                ),
              );
            });
            worker.once('exit', (code) => {
              settle(() => reject(new UnreadableDocument(`the reader stopped (exit code ${code})`)));
            });
          }),
      ) as Promise<ExtractedText>;
    },
  };
}
