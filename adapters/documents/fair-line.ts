/** Which bound turned a document away: its organization's share, or the whole line. */
export type LineBound = 'organization' | 'capacity';

export interface FairLineLimits {
  /** Tasks at work at once. */
  concurrency: number;
  /** Tasks that may wait. */
  maxQueued: number;
  /** Of those, one organization's at most. */
  perOrganization: number;
  queuedPerOrganization: number;
}

/**
 * A waiting line where one organization holds at most its share: at most `perOrganization` of
 * the tasks at work and `queuedPerOrganization` of the waiting ones. A task that may not start
 * waits, and a freed place goes to the organizations in turn (round robin, each one's tasks in
 * the order they came), skipping one at its share: an organization that sends many slow
 * documents keeps to its share, and another's still gets a reader or a place in line, and is
 * served before the first one's next.
 */
export class FairLine {
  readonly #limits: FairLineLimits;
  #running = 0;
  #waiting = 0;
  readonly #runningBy = new Map<string, number>();
  /** Each waiting organization's tasks; the map's order is the turn. */
  readonly #queues = new Map<string, (() => void)[]>();

  constructor(limits: FairLineLimits) {
    this.#limits = limits;
  }

  /** Tasks waiting. */
  get waiting(): number {
    return this.#waiting;
  }

  /**
   * Null when `organization`'s next task would start or wait; else the bound that refuses it:
   * its own share when it holds it (the readers it may use, or the places in line it may take),
   * else the whole line (as the upload budget answers: the narrowest bound first).
   */
  refusal(organization: string): LineBound | null {
    const limits = this.#limits;
    const running = this.#runningBy.get(organization) ?? 0;
    const queued = this.#queues.get(organization)?.length ?? 0;
    if (this.#running < limits.concurrency && running < limits.perOrganization) return null;
    if (queued < limits.queuedPerOrganization && this.#waiting < limits.maxQueued) return null;
    const holdsShare =
      running >= limits.perOrganization ||
      (limits.queuedPerOrganization > 0 && queued >= limits.queuedPerOrganization);
    return holdsShare ? 'organization' : 'capacity';
  }

  /** Runs `task` when its turn comes (call `refusal` first: this never refuses). */
  run<T>(organization: string, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.#running += 1;
        this.#runningBy.set(organization, (this.#runningBy.get(organization) ?? 0) + 1);
        task()
          .then(resolve, reject)
          .finally(() => {
            this.#running -= 1;
            const left = this.#runningBy.get(organization)! - 1;
            if (left) this.#runningBy.set(organization, left);
            else this.#runningBy.delete(organization);
            this.#next();
          });
      };
      const running = this.#runningBy.get(organization) ?? 0;
      if (this.#running < this.#limits.concurrency && running < this.#limits.perOrganization) {
        start();
        return;
      }
      const queue = this.#queues.get(organization);
      if (queue) queue.push(start);
      else this.#queues.set(organization, [start]);
      this.#waiting += 1;
    });
  }

  /** Starts waiting tasks while there is room, one organization's after another's. */
  #next() {
    for (const organization of [...this.#queues.keys()]) {
      if (this.#running >= this.#limits.concurrency) return;
      if ((this.#runningBy.get(organization) ?? 0) >= this.#limits.perOrganization) continue;
      const queue = this.#queues.get(organization)!;
      const start = queue.shift()!;
      this.#waiting -= 1;
      // Served: its turn comes again after every other waiting organization's.
      this.#queues.delete(organization);
      if (queue.length) this.#queues.set(organization, queue);
      start();
    }
  }
}
