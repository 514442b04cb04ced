import type { Auth, DomainContext } from '../context.ts';
import { unavailable } from '../errors.ts';
import type { LiveEvents, StreamEnd } from '../ports/live-events.ts';
import { checkTimeRange, type EventFilter } from './event-filter.ts';
import { hiddenAggregateTypes } from './event-log.ts';
import type { EventOutput } from './event-output.ts';

/**
 * The event log, live (api.md, "Live events"; decisions 049, 050 and 079): what the domain says of
 * a live stream. The streams themselves, the reader of the log and PostgreSQL's NOTIFY are the
 * adapter's (adapters/events/live-hub.ts), behind the `LiveEvents` port (domain/ports/live-events.ts).
 */

/** A keep-alive comment at least this often on every stream (api.md: every 15 s). */
export const KEEP_ALIVE_MS = 15_000;

/** What a procedure that opens a stream has: the domain's context, and what its transport adds. */
export interface StreamContext extends DomainContext {
  /** The instance's streams: HTTP transports only (in-process callers hold none). */
  liveEvents?: LiveEvents;
  /** SHA-256 of the session token presented, if any (the stream ends when that session does). */
  sessionTokenHash: string | null;
  disconnect?: () => void;
}

/** The instance's streams: only HTTP transports have them. */
export function liveEventsOf(ctx: StreamContext): LiveEvents {
  if (!ctx.liveEvents) throw unavailable('Live streams are served over HTTP only', 5);
  return ctx.liveEvents;
}

/**
 * `events.onEvent` and `GET /notifications/events/stream`: the caller's events as they are
 * committed, after `lastEventId` first when given, each as `map` makes it (the transport's
 * message: one iterator, no wrapper per stream). Ends when `signal` aborts (the client left).
 */
export async function followEvents<T = EventOutput>(
  ctx: StreamContext,
  input: EventFilter & { lastEventId?: string },
  signal?: AbortSignal,
  map: (event: EventOutput) => T = asItIs as (event: EventOutput) => T,
): Promise<AsyncIterableIterator<T, undefined>> {
  const { lastEventId, ...filter } = input;
  checkTimeRange(filter);
  const stream = await liveEventsOf(ctx).openEventStream(
    { auth: ctx.auth, sessionTokenHash: ctx.sessionTokenHash, disconnect: ctx.disconnect },
    filter,
    lastEventId,
    map,
  );
  endOnAbort(signal, stream);
  return stream;
}

function asItIs(event: EventOutput): EventOutput {
  return event;
}

/**
 * Who may see what of the stream: the log's rule (`hiddenAggregateTypes`), one set per access
 * level, shared by the streams. A stream asks again when its caller's access changed.
 */
const hiddenTypes = new Map<string, ReadonlySet<string>>();
export function hiddenTypesOf(auth: Auth): ReadonlySet<string> {
  let hidden = hiddenTypes.get(auth.access);
  if (!hidden) {
    hidden = new Set(hiddenAggregateTypes(auth));
    hiddenTypes.set(auth.access, hidden);
  }
  return hidden;
}

/** Each event's JSON, made once by the reader for every stream that writes it as text (SSE). */
const jsonOfEvent = new WeakMap<EventOutput, string>();
export function eventJson(event: EventOutput): string {
  return jsonOfEvent.get(event) ?? JSON.stringify(event);
}

/** The reader's one JSON of `event`, for `eventJson`. */
export function keepEventJson(event: EventOutput): string {
  const json = JSON.stringify(event);
  jsonOfEvent.set(event, json);
  return json;
}

/** Ends `follower` when `signal` aborts (the client went away). */
export function endOnAbort(
  signal: AbortSignal | undefined,
  follower: { end(reason: StreamEnd): void },
): void {
  if (!signal) return;
  if (signal.aborted) follower.end('closed');
  else signal.addEventListener('abort', () => follower.end('closed'), { once: true });
}
