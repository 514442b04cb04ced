import type { Access } from '../auth/access.ts';
import { accessCovers, accessOf } from '../auth/access.ts';
import type { Auth, DomainContext } from '../context.ts';
import { badRequest } from '../errors.ts';
import { isoTimestamp } from '../iso-timestamp.ts';
import { readRows } from '../prepared-statements.ts';
import { checkTimeRange, type EventFilter, filterConditions, filtersRows } from './event-filter.ts';
import type { EventOutput } from './event-output.ts';

// How many events a filter matches varies by organization and value by orders of magnitude, and
// the page's LIMIT decides between an index walk and a sort: planned with the values each time.
const PLAN_EACH_CALL = { planEachCall: true };

/** The log's filters (shared with the stream, `event-filter.ts`) and its page. */
export interface EventLogFilter extends EventFilter {
  limit: number;
  offset: number;
  /** The page after this event, in log order (keyset: costs the same at any depth). */
  after?: string;
}

/**
 * Aggregates whose own list needs more than read access (api.md: the users list is admin's, the
 * API keys owner's): their events (e-mail addresses and roles, keys' names and prefixes) are left
 * out of the log for callers who may not list them, or the log would list them instead. The same
 * rule decides what a subscription may receive (`SUBSCRIPTION_MAY_READ_EVENT`).
 */
export const LISTED_ONLY_WITH: readonly (readonly [aggregateType: string, access: Access])[] = [
  ['user', 'admin'],
  ['api_key', 'owner'],
];

/** The aggregate types whose events `auth` may not see (event log, deliveries list). */
export function hiddenAggregateTypes(auth: Auth): string[] {
  return LISTED_ONLY_WITH.filter(([, needed]) => !accessCovers(accessOf(auth), needed)).map(([type]) => type);
}

export interface Page {
  total: number;
  limit: number;
  offset: number;
}

/** The event log's page: also the `after` of the next one (the page's last event, null on the last page). */
export interface EventPage extends Page {
  nextAfter: string | null;
}

/**
 * The organization's event log, newest first (occurredAt, then id), filtered and paged: the page
 * and its total in one statement (one round trip), as plain rows (building the page as one JSON
 * array cost PostgreSQL more than the rows themselves). Each filter has an index leading with
 * (organization, filter) and ending with the order, so the page is read in index order. The
 * total: see `totalOf`. Events of aggregates the caller may not list are left out
 * (`LISTED_ONLY_WITH`).
 */
export async function listEvents(
  { em, auth }: DomainContext,
  input: EventLogFilter,
): Promise<{ events: EventOutput[]; pagination: EventPage }> {
  checkTimeRange(input);
  if (input.after !== undefined && input.offset !== 0) {
    throw badRequest('Page with after or with offset, not both', [
      { path: ['offset'], message: 'must be 0 (or left out) with after' },
    ]);
  }
  const hidden = hiddenAggregateTypes(auth);
  const params = new Parameters();
  const where = whereOf(params, auth.organizationId, input, hidden);
  const total = totalOf(params, where, auth.organizationId, input, hidden);
  // `after`: the events that follow it in log order, along the same index as any page. The
  // event must be one the caller may see (its organization's, not hidden): else a 400.
  let pageWhere = where;
  let afterFound = 'true';
  if (input.after !== undefined) {
    const after = `(select occurred_at, id from event where id = ${params.add(input.after)}::uuid
                      and organization_id = ${params.add(auth.organizationId)}
                      and aggregate_type <> all(${params.add(hidden)}::text[]))`;
    pageWhere = `${where} and (occurred_at, id) < (select occurred_at, id from ${after} a)`;
    afterFound = `exists ${after}`;
  }
  // The first page without filters, the one most callers read, is one statement but for its size
  // (and the caller's hidden types): prepared, planned once per connection, with the size written
  // into the text, so that its plan (a walk down the organization's index) knows the LIMIT and
  // does not depend on any value. Any other page is planned with its values.
  const firstPage =
    input.offset === 0 && input.after === undefined && filterConditions(input, () => '').length === 0;
  const limit = firstPage ? String(input.limit + 1) : params.add(input.limit + 1);
  const offset = firstPage ? '0' : params.add(input.offset);
  // The total is computed once (an uncorrelated subquery) and repeated on each row of the page;
  // the outer join keeps one row, with no event, when the page is empty. One row more than the
  // page says whether there is a next one.
  const rows = await readRows<PageRow>(
    em,
    `select counted.total, counted.after_found as "afterFound", page.id, page.event_type as "eventType",
            page.aggregate_type as "aggregateType", page.aggregate_id as "aggregateId",
            ${isoTimestamp('page.occurred_at')} as "occurredAt", page.payload
       from (select (${total})::int as total, ${afterFound} as after_found) counted
       left join lateral (select id, event_type, aggregate_type, aggregate_id, occurred_at, payload
                            from event where ${pageWhere} order by occurred_at desc, id desc
                           limit ${limit} offset ${offset}) page on true
      order by page.occurred_at desc, page.id desc`,
    params.values,
    firstPage ? {} : PLAN_EACH_CALL,
  );
  if (!rows[0]!.afterFound) {
    throw badRequest(`Event ${input.after} is not in the event log`, [
      { path: ['after'], message: 'is not an event of the log' },
    ]);
  }
  const events: EventOutput[] = [];
  for (const { total: _total, afterFound: _found, ...event } of rows) {
    if (event.id !== null) events.push(event as EventOutput);
  }
  const more = events.length > input.limit;
  if (more) events.pop();
  return {
    events,
    pagination: {
      total: rows[0]!.total,
      limit: input.limit,
      offset: input.offset,
      nextAfter: more ? events.at(-1)!.id : null,
    },
  };
}

/**
 * A row of the page statement: the total, whether `after` named a visible event, and an event in
 * the answer's shape (null when the page is empty).
 */
type PageRow = { total: number; afterFound: boolean } & { [K in keyof EventOutput]: EventOutput[K] | null };

/** The parameters of one statement: `add` gives the placeholder of a value. */
class Parameters {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * The total as a scalar subquery: exact, without counting millions of rows. Counters kept by
 * triggers in the transaction that writes the events (see the migration `event-counts`):
 * filtered by type only (an event type, `slide.*`, an aggregate type) it is a sum of the
 * organization's per-type counters; a time range alone sums the hourly counters of its whole hours
 * and counts the events of its partial first and last hours along the time index. With an
 * aggregate id or a deck, or a type and a time range, the matching events are counted along their
 * own index, which the filter keeps short.
 */
function totalOf(
  params: Parameters,
  where: string,
  organizationId: string,
  filter: EventLogFilter,
  hidden: string[],
): string {
  if (!filtersRows(filter)) {
    return `select coalesce(sum(count), 0) from event_count where ${where}`;
  }
  const typed =
    (filter.eventType !== undefined && filter.eventType !== '*') || filter.aggregateType !== undefined;
  if (filter.aggregateId === undefined && filter.deckId === undefined && !typed) {
    return timeRangeTotal(params, organizationId, filter.since ?? null, filter.until ?? null, hidden);
  }
  return `select count(*) from event where ${where}`;
}

/**
 * Events in [since, until): whole hours [firstHour, lastHour) from `event_count_by_hour`, the
 * partial hours before and after them counted. When the range lies within one or two partial
 * hours, firstHour ≥ lastHour: no whole hour, and the two counts cover the range between them.
 * The hourly counters do not know aggregate types: hidden events of the whole hours are counted
 * along their own index and taken off (they are few: users and API keys change rarely).
 */
function timeRangeTotal(
  params: Parameters,
  organizationId: string,
  since: string | null,
  until: string | null,
  hidden: string[],
): string {
  const organization = params.add(organizationId);
  const hiddenTypes = params.add(hidden);
  return `with bounds as (
       select coalesce(s, '-infinity') as since, coalesce(u, 'infinity') as until,
              coalesce(case when date_trunc('hour', s, 'UTC') = s then s
                            else date_trunc('hour', s, 'UTC') + interval '1 hour' end, '-infinity') as first_hour,
              coalesce(date_trunc('hour', u, 'UTC'), 'infinity') as last_hour
         from (select ${params.add(since)}::timestamptz as s, ${params.add(until)}::timestamptz as u) given)
     select (select coalesce(sum(h.count), 0) from event_count_by_hour h, bounds b
               where h.organization_id = ${organization} and h.hour >= b.first_hour and h.hour < b.last_hour)
           - (select count(*) from event e, bounds b
               where e.organization_id = ${organization} and e.aggregate_type = any(${hiddenTypes}::text[])
                 and e.occurred_at >= b.first_hour and e.occurred_at < b.last_hour)
           + (select count(*) from event e, bounds b
               where e.organization_id = ${organization} and e.aggregate_type <> all(${hiddenTypes}::text[])
                 and e.occurred_at >= b.since and e.occurred_at < least(b.first_hour, b.until))
           + (select count(*) from event e, bounds b
               where e.organization_id = ${organization} and e.aggregate_type <> all(${hiddenTypes}::text[])
                 and e.occurred_at >= greatest(b.last_hour, b.first_hour, b.since) and e.occurred_at < b.until)`;
}

function whereOf(
  params: Parameters,
  organizationId: string,
  filter: EventLogFilter,
  hidden: string[],
): string {
  const conditions = [`organization_id = ${params.add(organizationId)}`];
  if (hidden.length > 0) conditions.push(`aggregate_type <> all(${params.add(hidden)}::text[])`);
  conditions.push(...filterConditions(filter, (value) => params.add(value)));
  return conditions.join(' and ');
}
