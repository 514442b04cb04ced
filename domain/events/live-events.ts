import type { EntityManager } from '@mikro-orm/postgresql';
import { accessOfRole } from '../auth/access.ts';
import type { Auth, DomainContext } from '../context.ts';
import { badRequest, tooManyRequests, unavailable } from '../errors.ts';
import { isoTimestamp } from '../iso-timestamp.ts';
import type { CommitSignals } from '../ports/commit-signals.ts';
import type { Logger } from '../ports/logger.ts';
import { readRows } from '../prepared-statements.ts';
import { checkTimeRange, type EventFilter, eventMatcher, filterConditions } from './event-filter.ts';
import { hiddenAggregateTypes } from './event-log.ts';
import type { EventOutput } from './event-output.ts';
import { callerKey, StreamLeases } from './stream-leases.ts';

/**
 * The event log, live (api.md, "Live events"; decisions 049 and 050). One `LiveEvents` per
 * instance holds every open stream (REST's SSE and tRPC's subscriptions alike), and ONE reader:
 * woken by PostgreSQL's NOTIFY at each commit that wrote events, it reads the new events of every
 * organization once, in the stream's order, and offers each to the streams of its organization.
 * A stream that resumes (`Last-Event-ID`) first reads its own backlog from the log, then joins.
 *
 * The order is (`tx_id`, `seq`): the writing transaction, then the event's place in it; the reader
 * reads only below the oldest transaction still running, so a transaction that commits late is
 * never overtaken and skipped (decision 049).
 */

/** The notification channels (migration `live-events`). */
export const EVENT_CHANNEL = 'event_log';
export const GENERATION_CHANNEL = 'generation_job';
/** …and on every change of an export (migration `export_jobs`), its payload the export's id. */
export const EXPORT_CHANNEL = 'export_job';
/** The channels whose payload names what a progress follower follows. */
export type ProgressChannel = typeof GENERATION_CHANNEL | typeof EXPORT_CHANNEL;

/** A keep-alive comment at least this often on every stream (api.md: every 15 s). */
export const KEEP_ALIVE_MS = 15_000;
/** Events read per statement, by the reader and by a stream catching up… */
const PAGE = 500;
/** …and at most about this many bytes of them (a page of large payloads would hold the heap). */
const PAGE_BYTES = 1024 * 1024;
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

/** Who holds a stream, and what ends it: its session (by token hash) or its API key. */
export interface StreamCaller {
  auth: Auth;
  /** SHA-256 of the session token; null for an API key (or an in-process caller). */
  sessionTokenHash: string | null;
  /** Ends the connection at once (a consumer too slow, or a revoked caller): the transport's. */
  disconnect?: () => void;
}

/** Which transactions had committed at one moment: below xmin all, up to xmax all but `running`. */
interface Snapshot {
  xmin: bigint;
  xmax: bigint;
  running: ReadonlySet<bigint>;
}

/** A snapshot's running transactions when there are none (the usual case): one set for every stream. */
const NONE_RUNNING: ReadonlySet<bigint> = new Set();

/** A place in the stream's order: (transaction, sequence). */
type Key = readonly [tx: bigint, seq: bigint];

function after(a: Key, b: Key): boolean {
  return a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);
}

/** An event as the stream carries it: the log's entry, and what the stream needs around it. */
export interface LiveEvent {
  event: EventOutput;
  organizationId: string;
  deckId: string | null;
  key: Key;
  /** Bytes it holds in a stream's buffer (its JSON). */
  size: number;
  /** Its JSON, made once for every stream. */
  json: string;
}

type EventRow = EventOutput & { organizationId: string; deckId: string | null; tx: string; seq: string };
/** A row of a page: an event, and whether the page stopped short of what there is (`more`). */
type PageRow = EventRow & { more: boolean };

/**
 * A page of events, `where` (on `event e`) in the stream's order: at most PAGE of them and, past the
 * first, at most PAGE_BYTES of payload; `more` on each row when there may be further events.
 */
function pageOf(where: string, bytes = PAGE_BYTES): string {
  return `select * from (
      select p.*, sum(p.size) over (order by p.tx_id, p.seq_order) - p.size as before, count(*) over () as fetched
        from (select ${EVENT_COLUMNS}, e.tx_id, e.seq as seq_order, octet_length(e.payload::text) as size
                from event e where ${where} order by e.tx_id, e.seq limit ${PAGE}) p) counted
    where counted.before < ${bytes}
    order by counted.tx_id, counted.seq_order`;
}

/** The events of a page, and whether there may be more after them. */
function eventsOf(rows: (EventRow & { fetched?: string | number; before?: unknown; size?: unknown })[]) {
  const events = rows.filter((row) => row.id !== null).map(liveEventOf);
  const fetched = Number(rows[0]?.fetched ?? 0);
  return { events, more: fetched === PAGE || events.length < fetched };
}

const EVENT_COLUMNS = `e.id, e.event_type as "eventType", e.aggregate_type as "aggregateType",
  e.aggregate_id as "aggregateId", ${isoTimestamp('e.occurred_at')} as "occurredAt", e.payload,
  e.organization_id as "organizationId", e.deck_id as "deckId", e.tx_id::text as tx, e.seq::text as "seq"`;

function liveEventOf(row: EventRow): LiveEvent {
  const { id, eventType, aggregateType, aggregateId, occurredAt, payload, organizationId, deckId, tx, seq } =
    row;
  const event = { id, eventType, aggregateType, aggregateId, occurredAt, payload } as EventOutput;
  const json = JSON.stringify(event);
  jsonOfEvent.set(event, json);
  return { event, organizationId, deckId, key: [BigInt(tx), BigInt(seq)], size: json.length, json };
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * Why a stream ended. All but `closed` (its consumer left) and `shutting-down` (the transport ends
 * its answers itself, cleanly, with a `retry:`) cut the connection; `expired`: its row in the shared
 * count was gone (this instance could not renew its lease in time), so it counted no more.
 */
export type StreamEnd = 'closed' | 'too-slow' | 'revoked' | 'expired' | 'shutting-down';

/** Whether an end cuts the connection at once (else the transport ends the answer). */
function cuts(reason: StreamEnd): boolean {
  return reason !== 'closed' && reason !== 'shutting-down';
}

/** What the reader holds of an event stream: whatever its consumer makes of them, it is offered events. */
interface Offered extends Follower {
  offer(live: LiveEvent): void;
}

/** What the registry holds of any open stream (events or generation progress). */
interface Follower {
  readonly caller: StreamCaller;
  end(reason: StreamEnd): void;
}

/** The streams open on this process, SSE and tRPC alike: the metrics gauge "open event streams". */
let openStreamCount = 0;
export function openEventStreams(): number {
  return openStreamCount;
}

export class LiveEvents {
  readonly #em: () => EntityManager;
  readonly #signals: CommitSignals;
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
    signals: CommitSignals;
    settings: LiveSettings;
    logger: Logger;
  }) {
    this.#em = options.em;
    this.#signals = options.signals;
    this.#settings = options.settings;
    this.#logger = options.logger;
    this.#leases = new StreamLeases(options.em, options.settings);
  }

  #listening: Promise<void> | null = null;

  /**
   * Listens for commits from the first stream on (an instance that never holds one keeps no
   * connection for it); a database that cannot be reached now is retried by the signals, and the
   * reader's poll covers the meantime.
   */
  #listen(): Promise<void> {
    this.#listening ??= this.#signals
      .start([EVENT_CHANNEL, GENERATION_CHANNEL, EXPORT_CHANNEL], {
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
      })
      .catch((error: unknown) => this.#logger.warn({ err: error }, 'event notifications not listening yet'));
    return this.#listening;
  }

  /**
   * Ends every stream (their clients reconnect elsewhere; the transports have ended their answers
   * first, rest/event-stream.ts), uncounts them, and stops listening.
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
    await this.#signals.close();
  }

  /** Statements the reader and the streams have sent (bench:streams: per event, whatever the number of streams). */
  get statements(): number {
    return this.#statements;
  }

  #statements = 0;

  #rows<R extends object>(
    text: string,
    values: unknown[],
    options?: { planEachCall?: boolean },
  ): Promise<R[]> {
    this.#statements += 1;
    return readRows<R>(this.#em(), text, values, options);
  }

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

  /**
   * Opens an event stream: live from now, or from just after `lastEventId` (which the caller
   * must be able to see in the log: else a 400). 429 past STREAMS_PER_CALLER or
   * STREAMS_PER_ORGANIZATION, 503 past STREAMS_PER_INSTANCE.
   */
  async openEventStream<T>(
    caller: StreamCaller,
    filter: EventFilter,
    lastEventId: string | undefined,
    map: (event: EventOutput) => T,
  ): Promise<EventStream<T>> {
    this.#refuseOverCap(caller.auth);
    const from = lastEventId === undefined ? null : await this.#placeOf(caller.auth, lastEventId);
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
      if (from === null) stream.startAfter(await this.#snapshot());
    } catch (error) {
      stream.end('closed');
      throw error;
    }
    return stream;
  }

  /**
   * Follows a deck's generation job (`id`: the deck's) or an export (`id`: the export's, on
   * EXPORT_CHANNEL): `next()` resolves true after each change (false once ended). Counted against
   * the stream caps like any stream.
   */
  async openProgress(
    caller: StreamCaller,
    id: string,
    channel: ProgressChannel = GENERATION_CHANNEL,
  ): Promise<ProgressFollower> {
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

  /** Where `eventId` is in the stream's order, if the caller may see it in the log; else a 400. */
  async #placeOf(auth: Auth, eventId: string): Promise<Key> {
    const unknown = badRequest(`Event ${eventId} is not in the event log`, [
      { path: ['lastEventId'], message: 'is not an event of the log' },
    ]);
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(eventId)) throw unknown;
    const rows = await this.#rows<{ tx: string; seq: string }>(
      `select tx_id::text as tx, seq::text as seq from event
        where id = $1 and organization_id = $2 and aggregate_type <> all($3::text[])`,
      [eventId, auth.organizationId, hiddenAggregateTypes(auth)],
    );
    const row = rows[0];
    if (!row) throw unknown;
    return [BigInt(row.tx), BigInt(row.seq)];
  }

  /**
   * A stream's backlog: its organization's events after `from` that it may see and wants, in the
   * stream's order, committed below the horizon (the same rule as the reader's).
   */
  async readBacklog(
    auth: Auth,
    filter: EventFilter,
    from: Key,
    pageBytes: number,
  ): Promise<{ events: LiveEvent[]; more: boolean }> {
    const values: unknown[] = [
      auth.organizationId,
      from[0].toString(),
      from[1].toString(),
      hiddenAggregateTypes(auth),
    ];
    const add = (value: unknown) => `$${values.push(value)}`;
    const conditions = filterConditions(filter, add, 'e.');
    const rows = await this.#rows<PageRow>(
      pageOf(
        `e.organization_id = $1 and (e.tx_id, e.seq) > ($2::xid8, $3::bigint)
          and e.tx_id < pg_snapshot_xmin(pg_current_snapshot()) and e.aggregate_type <> all($4::text[])
          ${conditions.map((condition) => `and ${condition}`).join(' ')}`,
        Math.min(pageBytes, PAGE_BYTES),
      ),
      values,
      { planEachCall: true },
    );
    return eventsOf(rows);
  }

  /** The transactions committed as of now (PostgreSQL's `pg_current_snapshot()`). */
  async #snapshot(): Promise<Snapshot> {
    const [row] = await this.#rows<{ snapshot: string }>(
      'select pg_current_snapshot()::text as snapshot',
      [],
    );
    const [xmin, xmax, running] = row!.snapshot.split(':') as [string, string, string];
    return {
      xmin: BigInt(xmin),
      xmax: BigInt(xmax),
      running: running ? new Set(running.split(',').map(BigInt)) : NONE_RUNNING,
    };
  }

  /** Starts the reader when the first event stream opens: its place is "now". */
  #follow(): Promise<void> {
    if (this.#cursor) return Promise.resolve();
    this.#following ??= (async () => {
      const [row] = await this.#rows<{ horizon: string }>(
        'select pg_snapshot_xmin(pg_current_snapshot())::text as horizon',
        [],
      );
      this.#following = null;
      if (this.#byOrganization.size === 0) return;
      this.#cursor = [BigInt(row!.horizon), 0n];
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
    // The horizon first, then the events below it (a statement's snapshot is taken once).
    const rows = await this.#rows<PageRow & { horizon: string }>(
      `select h.horizon::text as horizon, page.* from (select pg_snapshot_xmin(pg_current_snapshot()) as horizon) h
         left join lateral (${pageOf('(e.tx_id, e.seq) > ($1::xid8, $2::bigint) and e.tx_id < h.horizon')}) page on true`,
      [cursor[0].toString(), cursor[1].toString()],
    );
    // Stopped following meanwhile (the last stream closed): this read is nobody's.
    if (this.#cursor !== cursor) return;
    const horizon = BigInt(rows[0]!.horizon);
    const { events, more } = eventsOf(rows);
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
      rows = await this.#rows(
        `select s.token_hash as credential, u.role, null as access
           from session s join app_user u on u.id = s.user_id
          where s.token_hash = any($1::text[]) and s.expires_at > now()
         union all
         select k.id::text, null, k.access::text from api_key k
          where k.id = any($2::uuid[]) and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())`,
        [[...sessions], [...keys]],
      );
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

/**
 * One open event stream: its backlog (when resuming), then what the reader offers it, through
 * a buffer of at most STREAM_BUFFER_BYTES. Past the buffer (one page of large events is more than
 * it) what is buffered is dropped and the consumer reads it again from the log, at its own pace,
 * in pages of at most the buffer's size, as a resuming stream reads its backlog: the server's memory
 * never grows with a consumer's slowness. A consumer is judged by whether it reads, not by the size
 * of a burst (decision 064): one that took no event between two checks of the streams
 * (STREAM_AUTH_CHECK_SECONDS) while events waited for it is cut off; it resumes from its last event.
 */
export class EventStream<T> implements Offered, AsyncIterableIterator<T, undefined> {
  readonly caller: StreamCaller;
  readonly #hub: LiveEvents;
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
    hub: LiveEvents,
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

/** One follower of a deck's generation job: woken by each change of its row. */
export class ProgressFollower implements Follower {
  readonly caller: StreamCaller;
  /** What it follows: `<channel>:<id>`. */
  readonly subject: string;
  readonly #hub: LiveEvents;
  #changed = false;
  #ended = false;
  #waiter: ((changed: boolean) => void) | null = null;

  constructor(hub: LiveEvents, caller: StreamCaller, subject: string) {
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

/** Each event's JSON, made once by the reader for every stream that writes it as text (SSE). */
const jsonOfEvent = new WeakMap<EventOutput, string>();
export function eventJson(event: EventOutput): string {
  return jsonOfEvent.get(event) ?? JSON.stringify(event);
}

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

/** What each access level may not see of the log (one set per level, shared by the streams). */
const hiddenTypes = new Map<string, ReadonlySet<string>>();
function hiddenTypesOf(auth: Auth): ReadonlySet<string> {
  let hidden = hiddenTypes.get(auth.access);
  if (!hidden) {
    hidden = new Set(hiddenAggregateTypes(auth));
    hiddenTypes.set(auth.access, hidden);
  }
  return hidden;
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
