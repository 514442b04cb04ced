import type { Auth } from '../../domain/context.ts';
import type { EventFilter } from '../../domain/events/event-filter.ts';
import type { StreamCaller, StreamEnd } from '../../domain/ports/live-events.ts';
import type { Key, Page } from './event-pages.ts';

/** What the hub holds of any open stream (events or progress). */
export interface Follower {
  readonly caller: StreamCaller;
  end(reason: StreamEnd): void;
}

/** What a stream asks of the hub that holds it (live-hub.ts). */
export interface StreamOwner {
  /** The stream has ended: it leaves the registry and its count. */
  remove(follower: Follower): void;
  /** A page of the stream's backlog (event-pages.ts, `readBacklog`). */
  readBacklog(auth: Auth, filter: EventFilter, from: Key, pageBytes: number): Promise<Page>;
}

/** Whether an end cuts the connection at once (else the transport ends the answer). */
export function cuts(reason: StreamEnd): boolean {
  return reason !== 'closed' && reason !== 'shutting-down';
}
