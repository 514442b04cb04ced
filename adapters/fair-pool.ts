/** One task waiting for a slot. */
interface Waiter {
  start(): void;
  cancel(reason: unknown): void;
}

/**
 * `concurrency` slots shared by organizations (speech threads, requests to a speech provider).
 * Each organization's tasks wait in a line of their own; a free slot goes to the lines in turn
 * (round-robin), and never to an organization already holding `perOrganization` slots. So one
 * organization's backlog delays its own tasks, never another's beyond the task in progress.
 */
export class FairPool {
  readonly #concurrency: number;
  readonly #perOrganization: number;
  /** The lines with tasks waiting, in the order they are served next (a served line goes last). */
  readonly #lines = new Map<string, Waiter[]>();
  readonly #running = new Map<string, number>();
  #total = 0;

  constructor(options: { concurrency: number; perOrganization: number }) {
    this.#concurrency = options.concurrency;
    this.#perOrganization = Math.max(1, Math.min(options.perOrganization, options.concurrency));
  }

  /** Tasks running and waiting, all organizations together. */
  counts(): { running: number; waiting: number } {
    let waiting = 0;
    for (const line of this.#lines.values()) waiting += line.length;
    return { running: this.#total, waiting };
  }

  /**
   * Runs `task` for `organizationId` when a slot is its; `signal` aborting while it waits takes
   * it out of its line (rejects with the signal's reason), once started the task itself must heed it.
   */
  run<T>(organizationId: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => waiter.cancel(signal!.reason);
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#total += 1;
          this.#running.set(organizationId, (this.#running.get(organizationId) ?? 0) + 1);
          // An async wrapper: a task that throws at once rejects, and still frees its slot.
          (async () => task())()
            .then(resolve, reject)
            .finally(() => {
              this.#total -= 1;
              const left = this.#running.get(organizationId)! - 1;
              if (left === 0) this.#running.delete(organizationId);
              else this.#running.set(organizationId, left);
              this.#next();
            });
        },
        cancel: (reason) => {
          const line = this.#lines.get(organizationId);
          const at = line?.indexOf(waiter) ?? -1;
          if (at < 0) return;
          line!.splice(at, 1);
          if (line!.length === 0) this.#lines.delete(organizationId);
          reject(reason);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const line = this.#lines.get(organizationId);
      if (line) line.push(waiter);
      else this.#lines.set(organizationId, [waiter]);
      this.#next();
    });
  }

  /** Starts waiting tasks while slots are free: the first line in turn whose organization has room. */
  #next(): void {
    while (this.#total < this.#concurrency) {
      let served: string | undefined;
      for (const [organizationId] of this.#lines) {
        if ((this.#running.get(organizationId) ?? 0) < this.#perOrganization) {
          served = organizationId;
          break;
        }
      }
      if (served === undefined) return;
      const line = this.#lines.get(served)!;
      const waiter = line.shift()!;
      // To the back of the turn (a Map keeps insertion order), or gone when it is empty.
      this.#lines.delete(served);
      if (line.length > 0) this.#lines.set(served, line);
      waiter.start();
    }
  }
}
