/**
 * Bytes held in memory by work in flight (uploads being read and processed), refusing what
 * would take the total past `capacity`, so that concurrent requests cannot grow the process
 * without bound: a refused request is answered 503 with `Retry-After` instead.
 */
export class ByteBudget {
  readonly capacity: number;
  #used = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get used(): number {
    return this.#used;
  }

  /** Reserves `bytes`, or returns null when they do not fit. The release may be called twice. */
  tryReserve(bytes: number): (() => void) | null {
    if (this.#used + bytes > this.capacity) return null;
    this.#used += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#used -= bytes;
    };
  }
}
