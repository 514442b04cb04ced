import type { Auth } from '../../domain/context.ts';
import { badRequest } from '../../domain/errors.ts';
import { type EventFilter, filterConditions } from '../../domain/events/event-filter.ts';
import { hiddenAggregateTypes } from '../../domain/events/event-log.ts';
import type { EventOutput } from '../../domain/events/event-output.ts';
import { keepEventJson } from '../../domain/events/live-events.ts';
import { isoTimestamp } from '../../domain/iso-timestamp.ts';

/**
 * What the live streams read of the log, in SQL (decision 049). The order is (`tx_id`, `seq`): the
 * writing transaction, then the event's place in it; reads stop below the oldest transaction still
 * running (the horizon), so a transaction that commits late is never overtaken and skipped.
 */

/** Runs one read-only statement (the hub counts them: bench:streams). */
export type Rows = <R extends object>(
  text: string,
  values: unknown[],
  options?: { planEachCall?: boolean },
) => Promise<R[]>;

/** Events read per statement, by the reader and by a stream catching up… */
const PAGE = 500;
/** …and at most about this many bytes of them (a page of large payloads would hold the heap). */
export const PAGE_BYTES = 1024 * 1024;

/** A place in the stream's order: (transaction, sequence). */
export type Key = readonly [tx: bigint, seq: bigint];

export function after(a: Key, b: Key): boolean {
  return a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);
}

/** Which transactions had committed at one moment: below xmin all, up to xmax all but `running`. */
export interface Snapshot {
  xmin: bigint;
  xmax: bigint;
  running: ReadonlySet<bigint>;
}

/** A snapshot's running transactions when there are none (the usual case): one set for every stream. */
const NONE_RUNNING: ReadonlySet<bigint> = new Set();

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

/** A page of events, and whether there may be further ones. */
export interface Page {
  events: LiveEvent[];
  more: boolean;
}

type EventRow = EventOutput & { organizationId: string; deckId: string | null; tx: string; seq: string };
/** A row of a page: an event, and how many the page fetched before its byte bound. */
type PageRow = EventRow & { fetched?: string | number; before?: unknown; size?: unknown };

const EVENT_COLUMNS = `e.id, e.event_type as "eventType", e.aggregate_type as "aggregateType",
  e.aggregate_id as "aggregateId", ${isoTimestamp('e.occurred_at')} as "occurredAt", e.payload,
  e.organization_id as "organizationId", e.deck_id as "deckId", e.tx_id::text as tx, e.seq::text as "seq"`;

/**
 * A page of events, `where` (on `event e`) in the stream's order: at most PAGE of them and, past the
 * first, at most `bytes` of payload.
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
function eventsOf(rows: PageRow[]): Page {
  const events = rows.filter((row) => row.id !== null).map(liveEventOf);
  const fetched = Number(rows[0]?.fetched ?? 0);
  return { events, more: fetched === PAGE || events.length < fetched };
}

function liveEventOf(row: EventRow): LiveEvent {
  const { id, eventType, aggregateType, aggregateId, occurredAt, payload, organizationId, deckId, tx, seq } =
    row;
  const event = { id, eventType, aggregateType, aggregateId, occurredAt, payload } as EventOutput;
  const json = keepEventJson(event);
  return { event, organizationId, deckId, key: [BigInt(tx), BigInt(seq)], size: json.length, json };
}

/**
 * The reader's read: every organization's events after `cursor` below the horizon, and the horizon
 * (taken first, in the same statement: a statement's snapshot is taken once).
 */
export async function readAfter(rows: Rows, cursor: Key): Promise<Page & { horizon: bigint }> {
  const read = await rows<PageRow & { horizon: string }>(
    `select h.horizon::text as horizon, page.* from (select pg_snapshot_xmin(pg_current_snapshot()) as horizon) h
       left join lateral (${pageOf('(e.tx_id, e.seq) > ($1::xid8, $2::bigint) and e.tx_id < h.horizon')}) page on true`,
    [cursor[0].toString(), cursor[1].toString()],
  );
  return { horizon: BigInt(read[0]!.horizon), ...eventsOf(read) };
}

/**
 * A stream's backlog: its organization's events after `from` that it may see and wants, in the
 * stream's order, committed below the horizon (the same rule as the reader's).
 */
export async function readBacklog(
  rows: Rows,
  auth: Auth,
  filter: EventFilter,
  from: Key,
  pageBytes: number,
): Promise<Page> {
  const values: unknown[] = [
    auth.organizationId,
    from[0].toString(),
    from[1].toString(),
    hiddenAggregateTypes(auth),
  ];
  const add = (value: unknown) => `$${values.push(value)}`;
  const conditions = filterConditions(filter, add, 'e.');
  const read = await rows<PageRow>(
    pageOf(
      `e.organization_id = $1 and (e.tx_id, e.seq) > ($2::xid8, $3::bigint)
        and e.tx_id < pg_snapshot_xmin(pg_current_snapshot()) and e.aggregate_type <> all($4::text[])
        ${conditions.map((condition) => `and ${condition}`).join(' ')}`,
      Math.min(pageBytes, PAGE_BYTES),
    ),
    values,
    { planEachCall: true },
  );
  return eventsOf(read);
}

/** Where `eventId` is in the stream's order, if the caller may see it in the log; else a 400. */
export async function placeOf(rows: Rows, auth: Auth, eventId: string): Promise<Key> {
  const unknown = badRequest(`Event ${eventId} is not in the event log`, [
    { path: ['lastEventId'], message: 'is not an event of the log' },
  ]);
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(eventId)) throw unknown;
  const [row] = await rows<{ tx: string; seq: string }>(
    `select tx_id::text as tx, seq::text as seq from event
      where id = $1 and organization_id = $2 and aggregate_type <> all($3::text[])`,
    [eventId, auth.organizationId, hiddenAggregateTypes(auth)],
  );
  if (!row) throw unknown;
  return [BigInt(row.tx), BigInt(row.seq)];
}

/** The transactions committed as of now (PostgreSQL's `pg_current_snapshot()`). */
export async function snapshotNow(rows: Rows): Promise<Snapshot> {
  const [row] = await rows<{ snapshot: string }>('select pg_current_snapshot()::text as snapshot', []);
  const [xmin, xmax, running] = row!.snapshot.split(':') as [string, string, string];
  return {
    xmin: BigInt(xmin),
    xmax: BigInt(xmax),
    running: running ? new Set(running.split(',').map(BigInt)) : NONE_RUNNING,
  };
}

/** The oldest transaction still running: the reader starts there. */
export async function horizonNow(rows: Rows): Promise<bigint> {
  const [row] = await rows<{ horizon: string }>(
    'select pg_snapshot_xmin(pg_current_snapshot())::text as horizon',
    [],
  );
  return BigInt(row!.horizon);
}

/**
 * Of the sessions (by token hash) and API keys given, those still valid, each with what its caller
 * may now do: a user's role, or a key's access.
 */
export function validCallers(
  rows: Rows,
  sessions: string[],
  keys: string[],
): Promise<{ credential: string; role: string | null; access: string | null }[]> {
  return rows(
    `select s.token_hash as credential, u.role, null as access
       from session s join app_user u on u.id = s.user_id
      where s.token_hash = any($1::text[]) and s.expires_at > now()
     union all
     select k.id::text, null, k.access::text from api_key k
      where k.id = any($2::uuid[]) and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())`,
    [sessions, keys],
  );
}
