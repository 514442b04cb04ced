import path from 'node:path';
import { type ResourceLimits, Worker } from 'node:worker_threads';

/** How one task on a worker thread failed, for its caller to name in its own terms. */
export class WorkerTaskFailed extends Error {
  readonly kind: 'timeout' | 'aborted' | 'error' | 'exit' | 'memory';
  /** The worker's error code (`ERR_WORKER_OUT_OF_MEMORY`), or its exit code. */
  readonly code?: string;

  constructor(kind: WorkerTaskFailed['kind'], message: string, code?: string) {
    super(message);
    this.kind = kind;
    this.code = code;
  }
}

export interface WarmWorkersOptions {
  /** The worker's module: it answers each message it receives with one message. */
  url: URL;
  workerData?: unknown;
  resourceLimits?: ResourceLimits;
  /** A warm worker left unused this long exits (default `WARM_WORKER_IDLE_MS`). */
  idleMs?: number;
  /**
   * Most memory a worker at work may hold: its heap and the ArrayBuffers it allocated (external
   * memory, which `resourceLimits` does not bound), checked every `MEMORY_CHECK_MS`.
   */
  memoryLimitBytes?: number;
}

/**
 * How often a worker's memory is checked while it works. `worker.getHeapStatistics()` is answered
 * by an interrupt of the worker's isolate, so even while it runs synchronous code; a check costs
 * well under a millisecond.
 */
export const MEMORY_CHECK_MS = 25;

/**
 * The worker module `name` beside the module at `base` (its `import.meta.url`), in that module's
 * own form: `name.ts` when the sources run (tests, tools), `name.js` when the compiled service
 * does (`npm start` runs dist/, tsconfig.build.json).
 */
export function moduleBeside(base: string, name: string): URL {
  return new URL(`./${name}${path.extname(new URL(base).pathname)}`, base);
}

/** A warm worker left unused this long is stopped, so an idle service does not hold its memory. */
export const WARM_WORKER_IDLE_MS = 30_000;

/**
 * Worker threads kept warm between tasks: a worker that loads heavy libraries (a document
 * reader, a speech engine) pays for them once per thread rather than once per task. Started when
 * first needed; a worker whose task failed in any way (timeout, abort, error, exit, or an answer
 * the caller calls not reusable) is stopped, never reused, so nothing of one task reaches
 * another; a worker left idle for `idleMs` exits. The caller bounds how many run at once.
 */
export class WarmWorkers {
  readonly #options: WarmWorkersOptions;
  /** Warm workers and the timer that stops each. */
  readonly #idle = new Map<Worker, NodeJS.Timeout>();
  #started = 0;
  #closed = false;

  constructor(options: WarmWorkersOptions) {
    this.#options = options;
  }

  /** How many workers were started so far (a warm one is reused) and how many wait, warm. */
  counts(): { started: number; idle: number } {
    return { started: this.#started, idle: this.#idle.size };
  }

  /**
   * Posts `message` to a warm worker (or a fresh one) and resolves with its answer; rejects with a
   * `WorkerTaskFailed` after `timeoutMs`, on `signal`, or when the worker fails or exits.
   */
  run<Answer>(
    message: unknown,
    options: {
      timeoutMs: number;
      transfer?: ArrayBuffer[];
      signal?: AbortSignal;
      reusable: (answer: Answer) => boolean;
    },
  ): Promise<Answer> {
    const worker = this.#take();
    return new Promise<Answer>((resolve, reject) => {
      const settle = (outcome: () => void, reusable = false) => {
        clearTimeout(timer);
        clearTimeout(watch);
        settled = true;
        options.signal?.removeEventListener('abort', onAbort);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (reusable) this.#putBack(worker);
        else void worker.terminate();
        outcome();
      };
      const timer = setTimeout(() => {
        settle(() => reject(new WorkerTaskFailed('timeout', `took longer than ${options.timeoutMs} ms`)));
      }, options.timeoutMs);
      const limit = this.#options.memoryLimitBytes;
      let settled = false;
      let watch: NodeJS.Timeout | undefined;
      // One check at a time: the next is set when the last has been answered.
      const check = async () => {
        const heap = await worker.getHeapStatistics().catch(() => undefined);
        if (settled) return;
        if (heap && heap.used_heap_size + heap.external_memory > limit!) {
          settle(() => reject(new WorkerTaskFailed('memory', `held more than ${limit} bytes of memory`)));
        } else {
          watch = setTimeout(check, MEMORY_CHECK_MS);
        }
      };
      if (limit) watch = setTimeout(check, MEMORY_CHECK_MS);
      const onAbort = () => settle(() => reject(new WorkerTaskFailed('aborted', 'aborted')));
      const onMessage = (answer: Answer) => settle(() => resolve(answer), options.reusable(answer));
      const onError = (error: Error & { code?: string }) =>
        settle(() => reject(new WorkerTaskFailed('error', error.message, error.code)));
      const onExit = (code: number) =>
        settle(() => reject(new WorkerTaskFailed('exit', `stopped (exit code ${code})`, String(code))));
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      worker.once('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
      worker.postMessage(message, options.transfer ?? []);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const workers = [...this.#idle.keys()];
    for (const worker of workers) this.#forget(worker);
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  #start(): Worker {
    const worker = new Worker(this.#options.url, {
      workerData: this.#options.workerData,
      resourceLimits: this.#options.resourceLimits,
    });
    this.#started += 1;
    // An idle worker must not keep the process alive (a task at work keeps its request open).
    worker.unref();
    // A worker that stops while idle is forgotten; an 'error' with no listener would throw here.
    worker.on('error', () => {});
    worker.once('exit', () => this.#forget(worker));
    return worker;
  }

  #forget(worker: Worker) {
    clearTimeout(this.#idle.get(worker));
    this.#idle.delete(worker);
  }

  #take(): Worker {
    const [warm] = this.#idle.keys();
    if (!warm) return this.#start();
    this.#forget(warm);
    return warm;
  }

  #putBack(worker: Worker) {
    if (this.#closed) {
      void worker.terminate();
      return;
    }
    const timer = setTimeout(() => {
      this.#forget(worker);
      void worker.terminate();
    }, this.#options.idleMs ?? WARM_WORKER_IDLE_MS);
    timer.unref();
    this.#idle.set(worker, timer);
  }
}
