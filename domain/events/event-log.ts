import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainContext } from '../context.ts';
import { badRequest } from '../errors.ts';
import { type EventOutput, type EventRow, toEventOutput } from './event-output.ts';

export interface EventLogFilter {
  eventType?: string;
  aggregateType?: string;
  aggregateId?: string;
  /** Inclusive lower bound on occurredAt (ISO 8601). */
  since?: string;
  /** Exclusive upper bound on occurredAt (ISO 8601). */
  until?: string;
  limit: number;
  offset: number;
}

export interface Page {
  total: number;
  limit: number;
  offset: number;
}

/**
 * The organization's event log, newest first (occurredAt, then id), filtered and paged.
 * Each filter has an index leading with (organization, filter) and ending with the order,
 * so the page is read in index order. The total: see `countEvents`.
 */
export async function listEvents(
  { em, auth }: DomainContext,
  input: EventLogFilter,
): Promise<{ events: EventOutput[]; pagination: Page }> {
  if (input.since && input.until && Date.parse(input.since) >= Date.parse(input.until)) {
    throw badRequest('since must be earlier than until', [
      { path: ['until'], message: 'must be later than since' },
    ]);
  }
  const { where, params } = whereOf(auth.organizationId, input);
  const [rows, total] = await Promise.all([
    em.execute<EventRow[]>(
      `select id, event_type, aggregate_type, aggregate_id, occurred_at, payload from event
        where ${where} order by occurred_at desc, id desc limit ? offset ?`,
      [...params, input.limit, input.offset],
    ),
    countEvents(em, auth.organizationId, input),
  ]);
  return {
    events: rows.map(toEventOutput),
    pagination: { total, limit: input.limit, offset: input.offset },
  };
}

/**
 * Without a time range or an aggregate id, the total is a sum of the organization's counters
 * (`event_count`, kept exact by triggers in the transaction that writes the events: see the
 * migration `event-counts`), a few dozen rows however long the log; otherwise the matching
 * events are counted along their index, which the range or the aggregate keeps short.
 */
async function countEvents(
  em: EntityManager,
  organizationId: string,
  filter: EventLogFilter,
): Promise<number> {
  const counted =
    filter.aggregateId === undefined && filter.since === undefined && filter.until === undefined;
  const { where, params } = whereOf(organizationId, filter);
  const [row] = await em.execute<{ total: number }[]>(
    counted
      ? `select coalesce(sum(count), 0)::int as total from event_count where ${where}`
      : `select count(*)::int as total from event where ${where}`,
    params,
  );
  return row!.total;
}

function whereOf(organizationId: string, filter: EventLogFilter): { where: string; params: unknown[] } {
  const conditions = ['organization_id = ?'];
  const params: unknown[] = [organizationId];
  const filters: [string, string | undefined][] = [
    ['event_type = ?', filter.eventType],
    ['aggregate_type = ?', filter.aggregateType],
    ['aggregate_id = ?', filter.aggregateId],
    ['occurred_at >= ?', filter.since],
    ['occurred_at < ?', filter.until],
  ];
  for (const [condition, value] of filters) {
    if (value === undefined) continue;
    conditions.push(condition);
    params.push(value);
  }
  return { where: conditions.join(' and '), params };
}
