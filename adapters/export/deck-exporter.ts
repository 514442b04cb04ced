import { Worker } from 'node:worker_threads';
import {
  type DeckExporter,
  ExportFailed,
  type RenderedExport,
  type RenderRequest,
} from '../../domain/ports/deck-exporter.ts';
import { MEMORY_CHECK_MS, moduleBeside } from '../warm-workers.ts';
import type { WorkerMessage, WorkerRequest } from './export-worker.ts';

export interface DeckExporterOptions {
  /** EXPORT_WORKER_MEMORY_MB: the thread's heap, and its heap and buffers together. */
  workerMemoryMb: number;
  /** EXPORT_TIMEOUT_MS: longest rendering. */
  timeoutMs: number;
  /** How long an aborted renderer may take to stop by itself before its thread is terminated. */
  abortGraceMs?: number;
}

/**
 * The `DeckExporter` of the service: each export renders in a worker thread of its own
 * (`export-worker.ts`), so the event loop never waits on it (api.md: no request waits > 50 ms on an
 * export). A fresh thread per export rather than warm ones: an export runs for seconds to minutes,
 * so starting a thread (tens of milliseconds) is nothing beside it, and nothing of one export's
 * memory can reach another's. The thread is bounded: its heap by `resourceLimits`, its heap and
 * the buffers it allocates (which `resourceLimits` does not count) by a check every
 * MEMORY_CHECK_MS, and its time by `timeoutMs`; past any of them the export fails. How many run
 * at once is the export worker's concern (EXPORT_CONCURRENCY).
 */
export function createDeckExporter(options: DeckExporterOptions): DeckExporter {
  const url = moduleBeside(import.meta.url, 'export-worker');
  const limitBytes = options.workerMemoryMb * 1024 * 1024;
  const graceMs = options.abortGraceMs ?? 2000;
  const running = new Set<Worker>();

  return {
    render(request: RenderRequest): Promise<RenderedExport> {
      request.signal.throwIfAborted();
      const { onProgress, signal, ...given } = request;
      const worker = new Worker(url, {
        workerData: given satisfies WorkerRequest,
        resourceLimits: {
          maxOldGenerationSizeMb: options.workerMemoryMb,
          maxYoungGenerationSizeMb: 32,
          stackSizeMb: 4,
        },
      });
      running.add(worker);
      return new Promise<RenderedExport>((resolve, reject) => {
        let settled = false;
        let watch: NodeJS.Timeout | undefined;
        let stopTimer: NodeJS.Timeout | undefined;
        const settle = (outcome: () => void) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          clearTimeout(watch);
          clearTimeout(stopTimer);
          signal.removeEventListener('abort', onAbort);
          running.delete(worker);
          void worker.terminate();
          outcome();
        };
        const fail = (message: string) => settle(() => reject(new ExportFailed(message)));
        const timer = setTimeout(
          () => fail(`Rendering took longer than ${options.timeoutMs} ms (EXPORT_TIMEOUT_MS)`),
          options.timeoutMs,
        );
        const tooLarge = `Rendering needed more than ${options.workerMemoryMb} MB of memory (EXPORT_WORKER_MEMORY_MB)`;
        // One check at a time: the next is set once the last was answered.
        const check = async () => {
          const heap = await worker.getHeapStatistics().catch(() => undefined);
          if (settled) return;
          if (heap && heap.used_heap_size + heap.external_memory > limitBytes) fail(tooLarge);
          else watch = setTimeout(check, MEMORY_CHECK_MS);
        };
        watch = setTimeout(check, MEMORY_CHECK_MS);
        // Aborted: the renderer is asked to stop, and stopped after the grace period if it does not.
        const onAbort = () => {
          worker.postMessage({ type: 'abort' });
          stopTimer = setTimeout(() => settle(() => reject(signal.reason)), graceMs);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        worker.on('message', (message: WorkerMessage) => {
          if (message.type === 'progress') {
            if (!signal.aborted) onProgress(message.done, message.total);
          } else if (signal.aborted) {
            settle(() => reject(signal.reason));
          } else if (message.type === 'rendered') {
            settle(() => resolve(message.rendered));
          } else if (message.exportFailed) {
            fail(message.message);
          } else {
            // Not the renderer's own refusal: its words (a library's) stay in the log, not the export.
            settle(() => reject(new Error(`renderer failed: ${message.message}`)));
          }
        });
        worker.once('error', (error: Error & { code?: string }) => {
          if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') fail(tooLarge);
          else settle(() => reject(signal.aborted ? signal.reason : error));
        });
        worker.once('exit', (code) => {
          if (signal.aborted) settle(() => reject(signal.reason));
          else settle(() => reject(new Error(`the export's worker stopped (exit code ${code})`)));
        });
      });
    },
    async close() {
      await Promise.all([...running].map((worker) => worker.terminate()));
      running.clear();
    },
  };
}
