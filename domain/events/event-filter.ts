/**
 * The event log's filters, one implementation for the log (`event-log.ts`) and its live stream
 * (adapters/events/): as SQL conditions on `event` (the log's page and total, the stream's
 * backlog) and as a test of one event (what the stream's reader offers). api.md, "The event log's
 * filters, and query strings".
 */
import { badRequest } from '../errors.ts';

export interface EventFilter {
  /** An event type (`slide.created`), an aggregate wildcard (`slide.*`) or `*`. */
  eventType?: string;
  aggregateType?: string;
  aggregateId?: string;
  /** Events of this deck: the deck's own and those of everything in it (the event's `deck_id`). */
  deckId?: string;
  /** Inclusive lower bound on occurredAt (ISO 8601). */
  since?: string;
  /** Exclusive upper bound on occurredAt (ISO 8601). */
  until?: string;
}

/** `since` must come before `until` (else no event could match: a mistake, said so). */
export function checkTimeRange(filter: EventFilter): void {
  if (filter.since && filter.until && Date.parse(filter.since) >= Date.parse(filter.until)) {
    throw badRequest('since must be earlier than until', [
      { path: ['until'], message: 'must be later than since' },
    ]);
  }
}

/** An event as the filters see it (the log's entry), and its deck apart (not in the entry). */
export interface FilteredEvent {
  eventType: string;
  aggregateType: string;
  aggregateId: string;
  occurredAt: string;
}

/**
 * `slide.*` is the events of aggregate type `slide`: an event's aggregate type is its type's part
 * before the dot (`recordEvent`), so the wildcard is an equality that the aggregate type's index
 * serves (a `starts_with` on the type would not be indexed). `*` is no condition.
 */
function wildcardAggregate(eventType: string): string | undefined {
  return eventType.endsWith('.*') ? eventType.slice(0, -2) : undefined;
}

/** Whether the filter names no event type to match (`*` or none). */
function anyType(eventType: string | undefined): eventType is undefined {
  return eventType === undefined || eventType === '*';
}

/**
 * The filter as SQL conditions on the `event` columns (`prefix` names the table: `e.`), each
 * value a parameter (`add` gives its placeholder). Conditions on `event_type` and `aggregate_type`
 * only, when that is all the filter holds, so that `event_count` (the same columns) takes them too.
 */
export function filterConditions(
  filter: EventFilter,
  add: (value: unknown) => string,
  prefix = '',
): string[] {
  const conditions: string[] = [];
  const { eventType } = filter;
  if (!anyType(eventType)) {
    const aggregate = wildcardAggregate(eventType);
    conditions.push(
      aggregate === undefined
        ? `${prefix}event_type = ${add(eventType)}`
        : `${prefix}aggregate_type = ${add(aggregate)}`,
    );
  }
  if (filter.aggregateType !== undefined)
    conditions.push(`${prefix}aggregate_type = ${add(filter.aggregateType)}`);
  if (filter.aggregateId !== undefined) conditions.push(`${prefix}aggregate_id = ${add(filter.aggregateId)}`);
  if (filter.deckId !== undefined) conditions.push(`${prefix}deck_id = ${add(filter.deckId)}::uuid`);
  if (filter.since !== undefined)
    conditions.push(`${prefix}occurred_at >= ${add(filter.since)}::timestamptz`);
  if (filter.until !== undefined) conditions.push(`${prefix}occurred_at < ${add(filter.until)}::timestamptz`);
  return conditions;
}

/** Whether the filter needs the event rows themselves (not only `event_count`'s type counters). */
export function filtersRows(filter: EventFilter): boolean {
  return [filter.aggregateId, filter.deckId, filter.since, filter.until].some((value) => value !== undefined);
}

/**
 * The same filter as a test of one event (the rule of `filterConditions`), made once per stream:
 * the time bounds parsed once, compared as instants (an offset such as +02:00 is allowed in them).
 */
export function eventMatcher(filter: EventFilter): (event: FilteredEvent, deckId: string | null) => boolean {
  const { eventType, aggregateType, aggregateId, deckId } = filter;
  const aggregate = anyType(eventType) ? undefined : wildcardAggregate(eventType);
  const exactType = anyType(eventType) || aggregate !== undefined ? undefined : eventType;
  const since = filter.since === undefined ? undefined : Date.parse(filter.since);
  const until = filter.until === undefined ? undefined : Date.parse(filter.until);
  return (event, eventDeckId) => {
    if (exactType !== undefined && event.eventType !== exactType) return false;
    if (aggregate !== undefined && event.aggregateType !== aggregate) return false;
    if (aggregateType !== undefined && event.aggregateType !== aggregateType) return false;
    if (aggregateId !== undefined && event.aggregateId !== aggregateId) return false;
    if (deckId !== undefined && eventDeckId !== deckId) return false;
    if (since !== undefined || until !== undefined) {
      const at = Date.parse(event.occurredAt);
      if (since !== undefined && at < since) return false;
      if (until !== undefined && at >= until) return false;
    }
    return true;
  };
}
