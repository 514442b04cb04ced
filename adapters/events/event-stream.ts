import type { EventFilter } from '../../domain/events/event-filter.ts';
import { eventMatcher } from '../../domain/events/event-filter.ts';
import type { EventOutput } from '../../domain/events/event-output.ts';
import { hiddenTypesOf } from '../../domain/events/live-events.ts';
import type { LiveStream, StreamCaller, StreamEnd } from '../../domain/ports/live-events.ts';
import { after, type Key, type LiveEvent, type Snapshot } from './event-pages.ts';
import { cuts, type Follower, type StreamOwner } from './follower.ts';

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/** What the reader holds of an event stream: whatever its consumer makes of them, it is offered events. */
export interface Offered extends Follower {
  offer(live: LiveEvent): void;
}

/**
 * One open event stream: its backlog (when resuming), then what the reader offers it, through
 * a buffer of at most STREAM_BUFFER_BYTES. Past the buffer (one page of large events is more than
 * it) what is buffered is dropped and the consumer reads it again from the log, at its own pace,
 * in pages of at most the buffer's size, as a resuming stream reads its backlog: the server's memory
 * never grows with a consumer's slowness. A consumer is judged by whether it reads, not by the size
 * of a burst (decision 064): one that took no event between two checks of the streams
 * (STREAM_AUTH_CHECK_SECONDS) while events waited for it is cut off; it resumes from its last event.
 */
export class EventStream<T> implements Offered, LiveStream<T> {
  readonly caller: StreamCaller;
  readonly #hub: StreamOwner;
  readonly #filter: EventFilter;
  /** The filter as a test of one event (the rule of `readBacklog`'s SQL). */
  readonly #wants: ReturnType<typeof eventMatcher>;
  readonly #bufferBytes: number;
  /** The last event queued or read from the backlog (or resumed from). */
  #last: Key | null;
  /** The last event the consumer took (or resumed from): where the log is read again after a burst. */
  #lastTaken: Key | null;
  /** Events the consumer took, in all and at the last check: whether it reads. */
  #taken = 0;
  #takenAtCheck = 0;
  readonly #queue: LiveEvent[] = [];
  #queuedBytes = 0;
  /** While catching up: what the reader offered meanwhile (null once live). */
  #held: LiveEvent[] | null = [];
  #heldBytes = 0;
  #heldOverflowed = false;
  /** A consumer waiting for the next event. */
  #waiter: ((result: IteratorResult<T, undefined>) => void) | null = null;
  /** Resuming: the backlog being read (null once read or when live from the start). */
  #catchingUp: AsyncGenerator<LiveEvent, void> | null | undefined = undefined;
  #ended: StreamEnd | null = null;
  #hidden: ReadonlySet<string>;
  #hiddenFor: string;
  /** What the consumer gets of each event (the transport's message). */
  readonly #map: (event: EventOutput) => T;
  /** A live stream's start: events of transactions committed before it opened are skipped. */
  #opened: Snapshot | null = null;

  constructor(
    hub: StreamOwner,
    caller: StreamCaller,
    filter: EventFilter,
    from: Key | null,
    bufferBytes: number,
    map: (event: EventOutput) => T,
  ) {
    this.#hub = hub;
    this.caller = caller;
    this.#filter = filter;
    this.#wants = eventMatcher(filter);
    this.#last = from;
    this.#lastTaken = from;
    this.#bufferBytes = bufferBytes;
    this.#map = map;
    this.#hiddenFor = caller.auth.access;
    this.#hidden = hiddenTypesOf(caller.auth);
  }

  /**
   * A live stream's start: what the reader offered while the snapshot was taken is held until now,
   * then filtered by it. (More than the buffer in that instant: cut off, as a slow consumer is.)
   */
  startAfter(snapshot: Snapshot): void {
    this.#opened = snapshot;
    // Nothing taken yet: a read from the log starts at the snapshot (what precedes it is skipped).
    this.#lastTaken ??= [snapshot.xmin, 0n];
    const held = this.#held ?? [];
    const overflowed = this.#heldOverflowed;
    this.#held = null;
    if (overflowed) this.end('too-slow');
    else for (const live of held) this.offer(live);
  }

  get ended(): StreamEnd | null {
    return this.#ended;
  }

  /** The reader offers an event of the stream's organization. */
  offer(live: LiveEvent): void {
    if (this.#ended || !this.#visible(live) || !this.#wants(live.event, live.deckId)) return;
    if (this.#held) {
      if (this.#heldOverflowed) return;
      this.#heldBytes += live.size;
      this.#held.push(live);
      if (this.#heldBytes > this.#bufferBytes) {
        // The backlog read that follows covers them (the log has them all).
        this.#heldOverflowed = true;
        this.#held = [];
        this.#heldBytes = 0;
      }
      return;
    }
    if (this.#last && !after(live.key, this.#last)) return;
    if (this.#committedBeforeOpening(live)) return;
    this.#last = live.key;
    this.#queue.push(live);
    this.#queuedBytes += live.size;
    // A consumer waiting takes it at once, however large: nothing stays buffered.
    if (this.#queuedBytes <= this.#bufferBytes || this.#waiter) this.#wakeUp();
    else this.#readFromTheLog();
  }

  /** A live stream skips what had committed when it opened. */
  #committedBeforeOpening(live: LiveEvent): boolean {
    const opened = this.#opened;
    const [tx] = live.key;
    return opened !== null && (tx < opened.xmin || (tx < opened.xmax && !opened.running.has(tx)));
  }

  /**
   * A check of the streams (every STREAM_AUTH_CHECK_SECONDS): one whose consumer took nothing since
   * the last check while events waited for it (queued, or to be read again from the log) is cut off.
   */
  judge(): void {
    const behind = this.#queue.length > 0 || (this.#held !== null && this.#last !== null);
    if (behind && this.#taken === this.#takenAtCheck) this.end('too-slow');
    this.#takenAtCheck = this.#taken;
  }

  /** Past the buffer: what is queued is dropped, and read again from the log after the last event taken. */
  #readFromTheLog(): void {
    this.#queue.length = 0;
    this.#queuedBytes = 0;
    this.#last = this.#lastTaken;
    this.#held = [];
    this.#heldBytes = 0;
    this.#heldOverflowed = false;
    this.#catchingUp = undefined;
  }

  /** What the caller's access hides (recomputed when a check finds its role changed). */
  #visible(live: LiveEvent): boolean {
    if (this.caller.auth.access !== this.#hiddenFor) {
      this.#hiddenFor = this.caller.auth.access;
      this.#hidden = hiddenTypesOf(this.caller.auth);
    }
    return !this.#hidden.has(live.event.aggregateType);
  }

  end(reason: StreamEnd): void {
    if (this.#ended) return;
    this.#ended = reason;
    this.#queue.length = 0;
    this.#queuedBytes = 0;
    this.#held = null;
    this.#hub.remove(this);
    this.#wakeUp();
    if (cuts(reason)) this.caller.disconnect?.();
  }

  /** Hands the next event (or the end) to a consumer waiting for one. */
  #wakeUp(): void {
    const waiter = this.#waiter;
    if (!waiter) return;
    const result = this.#take();
    if (!result) return;
    this.#waiter = null;
    waiter(result);
  }

  /** The next queued event, the end, or null while there is neither. */
  #take(): IteratorResult<T, undefined> | null {
    if (this.#ended) return DONE;
    const live = this.#queue.shift();
    if (!live) return null;
    this.#queuedBytes -= live.size;
    this.#tookEvent(live);
    return { done: false, value: this.#map(live.event) };
  }

  #tookEvent(live: LiveEvent): void {
    this.#taken += 1;
    this.#lastTaken = live.key;
  }

  /**
   * The stream as an iterator written out, not an async generator: an idle stream holds one
   * pending promise, not suspended frames (bench:streams). Resuming, its backlog comes first.
   */
  next(): Promise<IteratorResult<T, undefined>> {
    this.#catchingUp ??= this.#held && this.#last ? this.#backlog() : null;
    if (this.#catchingUp) {
      return this.#catchingUp.next().then(
        (result): IteratorResult<T, undefined> | Promise<IteratorResult<T, undefined>> => {
          if (!result.done) {
            this.#tookEvent(result.value);
            return { done: false, value: this.#map(result.value.event) };
          }
          this.#catchingUp = null;
          return this.next();
        },
        (error: unknown) => {
          this.end('closed');
          throw error;
        },
      );
    }
    const result = this.#take();
    if (result) return Promise.resolve(result);
    return new Promise((resolve) => {
      this.#waiter = resolve;
    });
  }

  /** The consumer stopped (a `for await` left early): the stream ends. */
  return(): Promise<IteratorResult<T, undefined>> {
    this.end('closed');
    this.#catchingUp = null;
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Resuming: the log after the last event, page by page, then what was offered meanwhile. */
  async *#backlog(): AsyncGenerator<LiveEvent, void> {
    if (!this.#held || !this.#last) return;
    for (;;) {
      const page = await this.#hub.readBacklog(this.caller.auth, this.#filter, this.#last, this.#bufferBytes);
      for (const live of page.events) {
        if (this.#ended) return;
        this.#last = live.key;
        // Read again after a burst: a live stream still skips what had committed when it opened.
        if (!this.#committedBeforeOpening(live)) yield live;
      }
      if (page.more) continue;
      if (!this.#heldOverflowed) break;
      this.#heldOverflowed = false;
    }
    const held = this.#held ?? [];
    this.#held = null;
    this.#heldBytes = 0;
    for (const live of held) this.offer(live);
  }
}
