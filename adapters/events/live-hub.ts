import type { EntityManager } from '@mikro-orm/postgresql';
import { accessOfRole } from '../../domain/auth/access.ts';
import type { Auth } from '../../domain/context.ts';
import { tooManyRequests, unavailable } from '../../domain/errors.ts';
import type { EventFilter } from '../../domain/events/event-filter.ts';
import type { EventOutput } from '../../domain/events/event-output.ts';
import type { LiveEvents, ProgressSubject, StreamCaller } from '../../domain/ports/live-events.ts';
import type { Logger } from '../../domain/ports/logger.ts';
import { readRows } from '../../domain/prepared-statements.ts';
import { type CommitListener, EVENT_CHANNEL, EXPORT_CHANNEL, GENERATION_CHANNEL } from './commit-listener.ts';
import {
  horizonNow,
  type Key,
  type Page,
  placeOf,
  type Rows,
  readAfter,
  readBacklog,
  snapshotNow,
  validCallers,
} from './event-pages.ts';
import { EventStream, type Offered } from './event-stream.ts';
import type { Follower, StreamOwner } from './follower.ts';
import { ProgressFollower } from './progress-follower.ts';
import { callerKey, StreamLeases } from './stream-leases.ts';

/**
 * The event log, live (api.md, "Live events"; decisions 049, 050 and 079): the `LiveEvents` port.
 * One hub per instance holds every open stream (REST's SSE and tRPC's subscriptions alike), and ONE
 * reader: woken by PostgreSQL's NOTIFY at each commit that wrote events (commit-listener.ts), it
 * reads the new events of every organization once, in the stream's order (event-pages.ts), and
 * offers each to the streams of its organization. A stream that resumes (`Last-Event-ID`) first
 * reads its own backlog from the log, then joins (event-stream.ts).
 */

/** While a notified transaction waits behind an older one still running: first retry, then doubling. */
const RETRY_MIN_MS = 10;

export interface LiveSettings {
  /** STREAMS_PER_CALLER: open streams per user or API key, on all instances (429 past it). */
  streamsPerCaller: number;
  /** STREAMS_PER_ORGANIZATION: open streams per organization, on all instances (429 past it). */
  streamsPerOrganization: number;
  /** STREAMS_PER_INSTANCE: open streams on this instance, whoever's (503 past it). */
  streamsPerInstance: number;
  /** STREAM_LEASE_SECONDS: how long this instance's streams count after their last renewal. */
  leaseMs: number;
  /** STREAM_BUFFER_BYTES: what a stream may hold for a consumer that does not read; past it, it is cut off. */
  bufferBytes: number;
  /** STREAM_AUTH_CHECK_SECONDS: how often the open streams' sessions and keys are checked. */
  authCheckMs: number;
  /** The reader's safety net: it reads this often while streams are open, notified or not. */
  pollIntervalMs: number;
}

/** The streams open on this process, SSE and tRPC alike: the metrics gauge "open event streams". */
let openStreamCount = 0;
export function openEventStreams(): number {
  return openStreamCount;
}

export class LiveEventHub implements LiveEvents, StreamOwner {
  readonly #em: () => EntityManager;
  readonly #commits: CommitListener;
  readonly #settings: LiveSettings;
  readonly #logger: Logger;
  readonly #followers = new Set<Follower>();
  readonly #perCaller = new Map<string, number>();
  /** The shared count (decision 063), and each counted follower's row in it. */
  readonly #leases: StreamLeases;
  readonly #leaseOf = new Map<Follower, string>();
  #leaseTimer: NodeJS.Timeout | undefined;
  /**
   * Event streams by organization: an event is offered to its organization's only. The reader runs
   * while it holds one (no count of its own: a stream never added could not uncount another).
   */
  readonly #byOrganization = new Map<string, Set<Offered>>();
  /** Progress followers by what they follow: `<channel>:<id>` (a deck's generation, an export). */
  readonly #bySubject = new Map<string, Set<() => void>>();
  /** The reader's place: null while no event stream is open (it reads nothing then). */
  #cursor: Key | null = null;
  #following: Promise<void> | null = null;
  #reading: Promise<void> | null = null;
  #readAgain = false;
  /** The newest transaction a notification named: read until the horizon passes it. */
  #notified = 0n;
  #retryMs = RETRY_MIN_MS;
  #retryTimer: NodeJS.Timeout | undefined;
  #pollTimer: NodeJS.Timeout | undefined;
  #authTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: {
    em: () => EntityManager;
    commits: CommitListener;
    settings: LiveSettings;
    logger: Logger;
  }) {
    this.#em = options.em;
    this.#commits = options.commits;
    this.#settings = options.settings;
    this.#logger = options.logger;
    this.#leases = new StreamLeases(options.em, options.settings);
  }

  #listening: Promise<void> | null = null;

  /** Listens for commits from the first stream on (an instance that never holds one needs none). */
  #listen(): Promise<void> {
    this.#listening ??= this.#commits.subscribe({
      onSignal: (channel, payload) => {
        if (channel === EVENT_CHANNEL) {
          const tx = /^\d+$/.test(payload) ? BigInt(payload) : 0n;
          if (tx > this.#notified) this.#notified = tx;
          this.#read();
        } else {
          for (const wake of this.#bySubject.get(`${channel}:${payload}`) ?? []) wake();
        }
      },
      onGap: () => {
        this.#read();
        for (const wakes of this.#bySubject.values()) for (const wake of wakes) wake();
      },
    });
    return this.#listening;
  }

  /**
   * Ends every stream (their clients reconnect elsewhere; the transports have ended their answers
   * first, rest/event-stream.ts) and uncounts them. The composition root closes the listener.
   */
  async close(): Promise<void> {
    this.#closed = true;
    for (const follower of [...this.#followers]) follower.end('shutting-down');
    clearTimeout(this.#retryTimer);
    clearInterval(this.#pollTimer);
    clearInterval(this.#authTimer);
    clearInterval(this.#leaseTimer);
    await this.#leases
      .releaseAll()
      .catch((error: unknown) =>
        this.#logger.warn({ err: error }, 'uncounting the streams failed; their lease lapses instead'),
      );
  }

  /** Statements the reader and the streams have sent (bench:streams: per event, whatever the number of streams). */
  get statements(): number {
    return this.#statements;
  }

  #statements = 0;

  readonly #rows: Rows = (text, values, options) => {
    this.#statements += 1;
    return readRows(this.#em(), text, values, options);
  };

  /** Open streams on this instance. */
  get openStreams(): number {
    return this.#followers.size;
  }

  /** Streams the reader and the generation signals reach (tests: each open stream, no ended one). */
  get reachedStreams(): number {
    let reached = 0;
    for (const streams of this.#byOrganization.values()) reached += streams.size;
    for (const wakes of this.#bySubject.values()) reached += wakes.size;
    return reached;
  }

  /** The port's (domain/ports/live-events.ts). */
  async openEventStream<T>(
    caller: StreamCaller,
    filter: EventFilter,
    lastEventId: string | undefined,
    map: (event: EventOutput) => T,
  ): Promise<EventStream<T>> {
    this.#refuseOverCap(caller.auth);
    const from = lastEventId === undefined ? null : await placeOf(this.#rows, caller.auth, lastEventId);
    const stream = new EventStream(this, caller, filter, from, this.#settings.bufferBytes, map);
    // Ended while it was being counted (revoked, judged, shutting down): its consumer sees the end.
    if (!(await this.#add(stream))) return stream;
    const organization = this.#byOrganization.get(caller.auth.organizationId) ?? new Set();
    this.#byOrganization.set(caller.auth.organizationId, organization);
    organization.add(stream);
    try {
      await this.#listen();
      await this.#follow();
      // Live from now: what had committed when the stream opened is not news to it.
      if (from === null) stream.startAfter(await snapshotNow(this.#rows));
    } catch (error) {
      stream.end('closed');
      throw error;
    }
    return stream;
  }

  /** The port's: a job's row notifies its channel at each change, its payload the id. */
  async openProgress(caller: StreamCaller, subject: ProgressSubject, id: string): Promise<ProgressFollower> {
    const channel = subject === 'export' ? EXPORT_CHANNEL : GENERATION_CHANNEL;
    const follower = new ProgressFollower(this, caller, `${channel}:${id}`);
    if (!(await this.#add(follower))) return follower;
    const wakes = this.#bySubject.get(follower.subject) ?? new Set();
    this.#bySubject.set(follower.subject, wakes);
    wakes.add(follower.wake);
    await this.#listen();
    return follower;
  }

  /**
   * What this instance alone can tell: 503 past STREAMS_PER_INSTANCE (another instance may have
   * room), 429 past STREAMS_PER_CALLER here already (and while shutting down: the client
   * reconnects elsewhere). The caps across instances are the shared count's (`#add`).
   */
  #refuseOverCap(auth: Auth): void {
    if (this.#closed) throw tooManyRequests('The service is shutting down; reconnect', 1);
    if (this.#followers.size >= this.#settings.streamsPerInstance) {
      throw unavailable(
        `This instance holds as many streams as it may (${this.#settings.streamsPerInstance}); try again`,
        5,
      );
    }
    if ((this.#perCaller.get(callerKey(auth)) ?? 0) >= this.#settings.streamsPerCaller) {
      throw tooManyRequests(
        `At most ${this.#settings.streamsPerCaller} streams may be open at once per caller; close one first`,
        5,
      );
    }
  }

  /**
   * Holds a new stream: counted here at once (the instance's cap holds while the shared count is
   * asked), then in the shared count (429 past the organization's or the caller's cap: the stream
   * ends, uncounted). False when it ended meanwhile: the caller must not register it (`remove` has
   * run already, and would never run again).
   */
  async #add(follower: Follower): Promise<boolean> {
    this.#refuseOverCap(follower.caller.auth);
    const key = callerKey(follower.caller.auth);
    this.#perCaller.set(key, (this.#perCaller.get(key) ?? 0) + 1);
    this.#followers.add(follower);
    openStreamCount += 1;
    if (!this.#authTimer) {
      this.#authTimer = setInterval(() => this.#checkCallers(), this.#settings.authCheckMs);
      this.#authTimer.unref();
    }
    if (!this.#leaseTimer) {
      this.#leaseTimer = setInterval(() => this.#renewLeases(), this.#settings.leaseMs / 3);
      this.#leaseTimer.unref();
    }
    let lease: string;
    try {
      lease = await this.#leases.acquire(follower.caller.auth);
    } catch (error) {
      follower.end('closed');
      throw error;
    }
    // Ended meanwhile (revoked, judged, shutting down): uncounted at once.
    if (!this.#followers.has(follower)) {
      this.#leases.release(lease);
      return false;
    }
    this.#leaseOf.set(follower, lease);
    return true;
  }

  /**
   * Renews this instance's leases; a follower whose row was not found (its lease lapsed while this
   * instance could not renew it, and another open deleted it) counted no more: it ends, and its
   * client reconnects and is counted again.
   */
  async #renewLeases(): Promise<void> {
    const held = [...this.#leaseOf];
    let found: Set<string>;
    try {
      found = await this.#leases.renew();
    } catch (error) {
      this.#logger.warn({ err: error }, 'renewing the streams’ leases failed; trying again later');
      return;
    }
    for (const [follower, lease] of held) {
      if (!found.has(lease) && this.#leaseOf.get(follower) === lease) follower.end('expired');
    }
  }

  /** A stream has ended: it leaves the registry (what of it was registered: it may end before it is). */
  remove(follower: Follower): void {
    if (!this.#followers.delete(follower)) return;
    openStreamCount -= 1;
    const lease = this.#leaseOf.get(follower);
    if (lease !== undefined) {
      this.#leaseOf.delete(follower);
      this.#leases.release(lease);
    }
    const key = callerKey(follower.caller.auth);
    const open = (this.#perCaller.get(key) ?? 1) - 1;
    if (open === 0) this.#perCaller.delete(key);
    else this.#perCaller.set(key, open);
    if (follower instanceof EventStream) {
      const organization = this.#byOrganization.get(follower.caller.auth.organizationId);
      if (organization?.delete(follower) && organization.size === 0) {
        this.#byOrganization.delete(follower.caller.auth.organizationId);
        if (this.#byOrganization.size === 0) this.#stopFollowing();
      }
    } else if (follower instanceof ProgressFollower) {
      const wakes = this.#bySubject.get(follower.subject);
      wakes?.delete(follower.wake);
      if (wakes?.size === 0) this.#bySubject.delete(follower.subject);
    }
    if (this.#followers.size === 0) {
      clearInterval(this.#authTimer);
      this.#authTimer = undefined;
      clearInterval(this.#leaseTimer);
      this.#leaseTimer = undefined;
    }
  }

  /** A page of a stream's backlog. */
  readBacklog(auth: Auth, filter: EventFilter, from: Key, pageBytes: number): Promise<Page> {
    return readBacklog(this.#rows, auth, filter, from, pageBytes);
  }

  /** Starts the reader when the first event stream opens: its place is "now". */
  #follow(): Promise<void> {
    if (this.#cursor) return Promise.resolve();
    this.#following ??= (async () => {
      const horizon = await horizonNow(this.#rows);
      this.#following = null;
      if (this.#byOrganization.size === 0) return;
      this.#cursor = [horizon, 0n];
      this.#pollTimer = setInterval(() => this.#read(), this.#settings.pollIntervalMs);
      this.#pollTimer.unref();
      // Whatever committed while the place was taken.
      this.#read();
    })().finally(() => {
      this.#following = null;
    });
    return this.#following;
  }

  #stopFollowing(): void {
    this.#cursor = null;
    clearInterval(this.#pollTimer);
    clearTimeout(this.#retryTimer);
    this.#pollTimer = undefined;
    this.#retryTimer = undefined;
  }

  /** Reads now, or right after the read in progress. */
  #read(): void {
    if (!this.#cursor || this.#closed) return;
    if (this.#reading) {
      this.#readAgain = true;
      return;
    }
    this.#reading = this.#readOnce()
      .catch((error: unknown) => {
        this.#logger.warn({ err: error }, 'reading the event log for live streams failed; retrying');
        this.#scheduleRetry();
      })
      .finally(() => {
        this.#reading = null;
        if (this.#readAgain) {
          this.#readAgain = false;
          this.#read();
        }
      });
  }

  async #readOnce(): Promise<void> {
    const cursor = this.#cursor;
    if (!cursor) return;
    const { horizon, events, more } = await readAfter(this.#rows, cursor);
    // Stopped following meanwhile (the last stream closed): this read is nobody's.
    if (this.#cursor !== cursor) return;
    for (const live of events) {
      for (const stream of this.#byOrganization.get(live.organizationId) ?? []) stream.offer(live);
    }
    if (more) {
      this.#cursor = events.at(-1)!.key;
      this.#readAgain = true;
      return;
    }
    // Every event below the horizon has been read: the next read starts there.
    this.#cursor = [horizon, 0n];
    if (this.#notified >= horizon) this.#scheduleRetry();
    else this.#retryMs = RETRY_MIN_MS;
  }

  /** A notified transaction is still behind an older one that runs: look again shortly. */
  #scheduleRetry(): void {
    if (this.#retryTimer) return;
    const delay = this.#retryMs;
    this.#retryMs = Math.min(this.#retryMs * 2, this.#settings.pollIntervalMs);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#read();
    }, delay);
  }

  /**
   * Every open stream's session or key, checked in one statement: a revoked, expired or deleted
   * one ends its streams; a changed role applies to what its streams may see from now on. And each
   * event stream's consumer: one that took nothing while events waited is cut off (`judge`).
   */
  async #checkCallers(): Promise<void> {
    // And whether each consumer reads (a database that does not answer does not stop this).
    for (const follower of [...this.#followers]) if (follower instanceof EventStream) follower.judge();
    const sessions = new Set<string>();
    const keys = new Set<string>();
    for (const { caller } of this.#followers) {
      if (caller.auth.apiKey) keys.add(caller.auth.apiKey.id);
      else if (caller.sessionTokenHash) sessions.add(caller.sessionTokenHash);
    }
    let rows: { credential: string; role: string | null; access: string | null }[];
    try {
      rows = await validCallers(this.#rows, [...sessions], [...keys]);
    } catch (error) {
      this.#logger.warn({ err: error }, 'checking the streams’ callers failed; trying again later');
      return;
    }
    const valid = new Map(rows.map((row) => [row.credential, row]));
    for (const follower of [...this.#followers]) {
      const { auth, sessionTokenHash } = follower.caller;
      const credential = auth.apiKey?.id ?? sessionTokenHash;
      if (credential === null) continue;
      const row = valid.get(credential);
      if (!row) follower.end('revoked');
      else auth.access = row.role ? accessOfRole(row.role as never) : (row.access as Auth['access']);
    }
  }
}
