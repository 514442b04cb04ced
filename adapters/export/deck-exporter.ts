import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  type DeckExporter,
  ExportFailed,
  type RenderedExport,
  type RenderRequest,
} from '../../domain/ports/deck-exporter.ts';
import { treeResidentBytes } from '../process-memory.ts';
import { moduleBeside } from '../warm-workers.ts';
import type { ProcessCommand, ProcessMessage } from './export-process.ts';

export interface DeckExporterOptions {
  /** EXPORT_WORKER_MEMORY_MB: the render process's resident memory with its ffmpeg's. */
  workerMemoryMb: number;
  /** EXPORT_TIMEOUT_MS: longest rendering. */
  timeoutMs: number;
  /** How long an aborted renderer may take to stop by itself before its process is killed. */
  abortGraceMs?: number;
}

/**
 * The `DeckExporter` of the service: each export renders in a child process of its own
 * (`export-process.ts`, decision 072), so the event loop never waits on it (api.md: no request
 * waits > 50 ms on an export), and all its memory goes back to the system when it ends (a worker
 * thread's did not: glibc kept what its arenas had freed, and the service grew by tens of MB an
 * export). The process leads a process group of its own, so the ffmpeg it starts is killed with
 * it. It is bounded: its heap by `--max-old-space-size`, the resident memory of it and its ffmpeg
 * together by a check every MEMORY_CHECK_MS (Linux's /proc; elsewhere the heap bound alone), and
 * its time by `timeoutMs`; past any of them the export fails. How many run at once is the export
 * worker's concern (EXPORT_CONCURRENCY).
 */
/**
 * How often a render's memory is read from /proc. Not the worker threads' 25 ms: each read is a
 * few files per process, and every 25 ms they cost an MP4 export 2 s of 12 (bench:export); the
 * heap, where most of a render's memory is, stays bounded at every allocation by
 * `--max-old-space-size`.
 */
const PROCESS_MEMORY_CHECK_MS = 100;

export function createDeckExporter(options: DeckExporterOptions): DeckExporter {
  const modulePath = fileURLToPath(moduleBeside(import.meta.url, 'export-process'));
  const limitBytes = options.workerMemoryMb * 1024 * 1024;
  const graceMs = options.abortGraceMs ?? 2000;
  const running = new Set<ChildProcess>();

  return {
    render(request: RenderRequest): Promise<RenderedExport> {
      request.signal.throwIfAborted();
      const { onProgress, signal, ...order } = request;
      // Its work directory as its argument: what `ps` shows of it says which export it renders.
      const child = fork(modulePath, [order.workDir], {
        // A 1 MB young generation (V8's default grows to 16 MB a semi-space): 25 MB less resident
        // for the same render time (docs/performance.md, bench:export).
        execArgv: [`--max-old-space-size=${options.workerMemoryMb}`, '--max-semi-space-size=1'],
        serialization: 'advanced',
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        detached: true,
      });
      running.add(child);
      // Ended (and its pipes closed): nothing of the render runs any more. (No pid: it never started.)
      const closed =
        child.pid === undefined
          ? Promise.resolve()
          : new Promise<void>((resolve) => child.once('close', () => resolve()));
      const send = (command: ProcessCommand) => {
        if (child.connected) child.send(command, () => {});
      };
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
          killGroup(child);
          // The export ends once its process has: its work directory is then the caller's alone.
          void closed.then(() => {
            running.delete(child);
            outcome();
          });
        };
        const fail = (message: string) => settle(() => reject(new ExportFailed(message)));
        const timer = setTimeout(
          () => fail(`Rendering took longer than ${options.timeoutMs} ms (EXPORT_TIMEOUT_MS)`),
          options.timeoutMs,
        );
        const tooLarge = `Rendering needed more than ${options.workerMemoryMb} MB of memory (EXPORT_WORKER_MEMORY_MB)`;
        // One check at a time: the next is set once the last was answered.
        const check = async () => {
          const bytes = child.pid ? await treeResidentBytes(child.pid) : 0;
          if (settled) return;
          if (bytes > limitBytes) fail(tooLarge);
          else watch = setTimeout(check, PROCESS_MEMORY_CHECK_MS);
        };
        watch = setTimeout(check, PROCESS_MEMORY_CHECK_MS);
        // Aborted: the renderer is asked to stop, and killed after the grace period if it does not.
        const onAbort = () => {
          send({ type: 'abort' });
          stopTimer = setTimeout(() => settle(() => reject(signal.reason)), graceMs);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        child.on('message', (message: ProcessMessage) => {
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
        child.once('error', (error) => settle(() => reject(signal.aborted ? signal.reason : error)));
        child.once('close', (code, killedBy) => {
          if (signal.aborted) settle(() => reject(signal.reason));
          // V8 past --max-old-space-size aborts the process (SIGABRT, or SIGTRAP on some builds).
          else if (killedBy === 'SIGABRT' || killedBy === 'SIGTRAP') fail(tooLarge);
          else
            settle(() =>
              reject(new Error(`the export's process stopped (${killedBy ?? `exit code ${code}`})`)),
            );
        });
        send({ type: 'render', order });
      });
    },
    async close() {
      const exits = [...running].map((child) =>
        child.exitCode === null && child.signalCode === null
          ? new Promise((resolve) => child.once('close', resolve))
          : undefined,
      );
      for (const child of running) killGroup(child);
      await Promise.all(exits);
    },
  };
}

/** Kills the render process and what it started (its ffmpeg): they share its process group. */
function killGroup(child: ChildProcess): void {
  if (!child.pid) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone (or no process groups here): the process itself, at least.
    child.kill('SIGKILL');
  }
}
