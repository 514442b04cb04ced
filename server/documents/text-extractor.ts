import { Worker } from 'node:worker_threads';
import PQueue from 'p-queue';

/** Plain text out of a PDF or DOCX. */
export interface TextExtractor {
  extractText(bytes: Buffer): Promise<string>;
}

export class UnreadableDocument extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'UnreadableDocument';
  }
}

/**
 * officeparser in a worker thread per document, at most `concurrency` at once (p-queue),
 * each stopped after `timeoutMs`. The event loop stays free for other requests.
 */
export function createWorkerTextExtractor(options: {
  concurrency: number;
  timeoutMs: number;
}): TextExtractor {
  const queue = new PQueue({ concurrency: options.concurrency });
  const workerUrl = new URL('./extract-worker.ts', import.meta.url);
  return {
    extractText(bytes) {
      return queue.add(
        () =>
          new Promise<string>((resolve, reject) => {
            const worker = new Worker(workerUrl, { workerData: { bytes: new Uint8Array(bytes) } });
            const timer = setTimeout(() => {
              void worker.terminate();
              reject(new UnreadableDocument(`reading the document took longer than ${options.timeoutMs} ms`));
            }, options.timeoutMs);
            worker.once('message', (message: { ok: boolean; text?: string; error?: string }) => {
              clearTimeout(timer);
              void worker.terminate();
              if (message.ok) resolve(message.text ?? '');
              else reject(new UnreadableDocument(message.error ?? 'unreadable'));
            });
            worker.once('error', (error) => {
              clearTimeout(timer);
              reject(new UnreadableDocument(error.message));
            });
          }),
      ) as Promise<string>;
    },
  };
}
