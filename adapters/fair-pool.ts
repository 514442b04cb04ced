import { AsyncResource } from 'node:async_hooks';

/** One task waiting for a slot. */
interface Waiter {
  start(): void;
  cancel(reason: unknown): void;
}

/**
 * `concurrency` slots shared by organizations (speech threads, requests to a speech provider).
 * Each organization's tasks wait in a line of their own; a free slot goes to the lines in turn
 * (round-robin: the organization served longest ago first), and never to an organization already
 * holding `perOrganization` slots. So one organization's backlog delays its own tasks, not another's.
 */
export class FairPool {
  readonly #concurrency: number;
  readonly #perOrganization: number;
  /** The tasks waiting, a line for each organization with any. */
  readonly #lines = new Map<string, Waiter[]>();
  readonly #running = new Map<string, number>();
  /** When each organization with tasks running or waiting was last served (a count of tasks started). */
  readonly #served = new Map<string, number>();
  #started = 0;
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
    // Started later, from whichever task's end freed the slot: run in its caller's context (the
    // request's trace and log fields), not that one's.
    const inContext = AsyncResource.bind(task);
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => waiter.cancel(signal!.reason);
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#total += 1;
          this.#running.set(organizationId, (this.#running.get(organizationId) ?? 0) + 1);
          // An async wrapper: a task that throws at once rejects, and still frees its slot.
          (async () => inContext())()
            .then(resolve, reject)
            .finally(() => {
              this.#total -= 1;
              const left = this.#running.get(organizationId)! - 1;
              if (left > 0) this.#running.set(organizationId, left);
              else {
                this.#running.delete(organizationId);
                if (!this.#lines.has(organizationId)) this.#served.delete(organizationId);
              }
              this.#next();
            });
        },
        cancel: (reason) => {
          const line = this.#lines.get(organizationId);
          const at = line?.indexOf(waiter) ?? -1;
          if (at < 0) return;
          line!.splice(at, 1);
          if (line!.length === 0) {
            this.#lines.delete(organizationId);
            if (!this.#running.has(organizationId)) this.#served.delete(organizationId);
          }
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

  /**
   * Starts waiting tasks while slots are free: of the organizations with room, the one served
   * longest ago (one not served since it last had nothing running or waiting: at once).
   */
  #next(): void {
    while (this.#total < this.#concurrency) {
      let next: string | undefined;
      let longestAgo = Number.POSITIVE_INFINITY;
      for (const organizationId of this.#lines.keys()) {
        if ((this.#running.get(organizationId) ?? 0) >= this.#perOrganization) continue;
        const served = this.#served.get(organizationId) ?? -1;
        if (served < longestAgo) [next, longestAgo] = [organizationId, served];
      }
      if (next === undefined) return;
      const line = this.#lines.get(next)!;
      const waiter = line.shift()!;
      if (line.length === 0) this.#lines.delete(next);
      this.#started += 1;
      this.#served.set(next, this.#started);
      waiter.start();
    }
  }
}
