import type { ProgressStream, StreamCaller, StreamEnd } from '../../domain/ports/live-events.ts';
import { cuts, type Follower, type StreamOwner } from './follower.ts';

/** One follower of a job (a generation, an export): woken by each change of its row (live-hub.ts). */
export class ProgressFollower implements Follower, ProgressStream {
  readonly caller: StreamCaller;
  /** What it follows: `<channel>:<id>`. */
  readonly subject: string;
  readonly #hub: StreamOwner;
  #changed = false;
  #ended = false;
  #waiter: ((changed: boolean) => void) | null = null;

  constructor(hub: StreamOwner, caller: StreamCaller, subject: string) {
    this.#hub = hub;
    this.caller = caller;
    this.subject = subject;
  }

  readonly wake = (): void => {
    this.#changed = true;
    this.#settle();
  };

  /** Resolves true once the job changed since the last call, false when the stream has ended. */
  next(): Promise<boolean> {
    return new Promise((resolve) => {
      this.#waiter = resolve;
      this.#settle();
    });
  }

  #settle(): void {
    const waiter = this.#waiter;
    if (!waiter || !(this.#changed || this.#ended)) return;
    this.#waiter = null;
    const changed = this.#changed && !this.#ended;
    this.#changed = false;
    waiter(changed);
  }

  end(reason: StreamEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#hub.remove(this);
    this.#settle();
    if (cuts(reason)) this.caller.disconnect?.();
  }
}
