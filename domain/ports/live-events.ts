import type { Auth } from '../context.ts';
import type { EventFilter } from '../events/event-filter.ts';
import type { EventOutput } from '../events/event-output.ts';

/**
 * The instance's live streams (api.md, "Live events"; decisions 049, 050, 063, 064, 079): the event
 * log as it is committed, and the progress of a job. The adapter (adapters/events/) holds the
 * streams, reads the log and counts them across instances; the domain says who may see what
 * (domain/events/live-events.ts) and which events a stream wants (domain/events/event-filter.ts).
 */
export interface LiveEvents {
  /**
   * Opens an event stream: live from now, or from just after `lastEventId` (which the caller must
   * be able to see in the log: else a 400). 429 past STREAMS_PER_CALLER or STREAMS_PER_ORGANIZATION,
   * 503 past STREAMS_PER_INSTANCE. Each event the caller may see and `filter` wants, as `map` makes it.
   */
  openEventStream<T>(
    caller: StreamCaller,
    filter: EventFilter,
    lastEventId: string | undefined,
    map: (event: EventOutput) => T,
  ): Promise<LiveStream<T>>;
  /**
   * Follows a deck's generation job (`id`: the deck's) or an export (`id`: the export's): `next()`
   * resolves true after each change. Counted against the stream caps like any stream.
   */
  openProgress(caller: StreamCaller, subject: ProgressSubject, id: string): Promise<ProgressStream>;
}

/** What a progress stream follows. */
export type ProgressSubject = 'generation' | 'export';

/** Who holds a stream, and what ends it: its session (by token hash) or its API key. */
export interface StreamCaller {
  auth: Auth;
  /** SHA-256 of the session token; null for an API key (or an in-process caller). */
  sessionTokenHash: string | null;
  /** Ends the connection at once (a consumer too slow, or a revoked caller): the transport's. */
  disconnect?: () => void;
}

/**
 * Why a stream ended. All but `closed` (its consumer left) and `shutting-down` (the transport ends
 * its answers itself, cleanly, with a `retry:`) cut the connection; `expired`: its row in the shared
 * count was gone (this instance could not renew its lease in time), so it counted no more.
 */
export type StreamEnd = 'closed' | 'too-slow' | 'revoked' | 'expired' | 'shutting-down';

/** An open event stream: its events in the log's order, until it ends. */
export interface LiveStream<T> extends AsyncIterableIterator<T, undefined> {
  end(reason: StreamEnd): void;
}

/** An open progress stream. */
export interface ProgressStream {
  /** Resolves true once what it follows changed since the last call, false when the stream has ended. */
  next(): Promise<boolean>;
  end(reason: StreamEnd): void;
}
