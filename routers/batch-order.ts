/**
 * The mutations of one /trpc batch, run one after another in the batch's order. tRPC starts a
 * batch's calls together, so two `slides.createSlide` of one batch raced for the deck's lock and
 * could be numbered in reverse; a client that batches its calls expects them applied as it made
 * them. Queries are never batched with mutations (tRPC refuses a mix), and stay concurrent.
 */
export class BatchOrder {
  /** Each call's turn ends when this settles; by batch index. */
  readonly #done = new Map<number, Promise<void>>();
  readonly #finish = new Map<number, () => void>();
  /** The call before each one in the batch, of those that will run (by batch index). */
  readonly #previous = new Map<number, number>();

  /** `indexes`: the batch indexes of the calls that will reach a procedure, in order. */
  constructor(indexes: readonly number[]) {
    let previous: number | undefined;
    for (const index of indexes) {
      const { promise, resolve } = Promise.withResolvers<void>();
      this.#done.set(index, promise);
      this.#finish.set(index, resolve);
      if (previous !== undefined) this.#previous.set(index, previous);
      previous = index;
    }
  }

  /**
   * Runs `run` once every earlier call of the batch has finished (succeeded or failed); a call the
   * batch does not know (not a mutation) runs at once. Gives up, running nothing, when `signal`
   * aborts first (the client went away).
   */
  async inTurn<R>(index: number, run: () => Promise<R>, signal?: AbortSignal): Promise<R> {
    const previous = this.#previous.get(index);
    if (previous !== undefined) {
      const aborted = signal ? abortOf(signal) : undefined;
      try {
        await (aborted
          ? Promise.race([this.#done.get(previous), aborted.promise])
          : this.#done.get(previous));
      } catch (error) {
        this.#finish.get(index)?.();
        throw error;
      } finally {
        aborted?.stop();
      }
    }
    try {
      return await run();
    } finally {
      this.#finish.get(index)?.();
    }
  }
}

/** A promise that rejects when `signal` aborts, and a way to stop listening. */
function abortOf(signal: AbortSignal): { promise: Promise<never>; stop(): void } {
  const { promise, reject } = Promise.withResolvers<never>();
  promise.catch(() => {});
  const onAbort = () => reject(signal.reason ?? new Error('aborted'));
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return { promise, stop: () => signal.removeEventListener('abort', onAbort) };
}
