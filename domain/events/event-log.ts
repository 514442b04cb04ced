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
 * so the page is read in index order and the count never touches other rows.
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
  const conditions = ['organization_id = ?'];
  const params: unknown[] = [auth.organizationId];
  const filters: [string, string | undefined][] = [
    ['event_type = ?', input.eventType],
    ['aggregate_type = ?', input.aggregateType],
    ['aggregate_id = ?', input.aggregateId],
    ['occurred_at >= ?', input.since],
    ['occurred_at < ?', input.until],
  ];
  for (const [condition, value] of filters) {
    if (value === undefined) continue;
    conditions.push(condition);
    params.push(value);
  }
  const where = conditions.join(' and ');
  const [rows, [count]] = await Promise.all([
    em.execute<EventRow[]>(
      `select id, event_type, aggregate_type, aggregate_id, occurred_at, payload from event
        where ${where} order by occurred_at desc, id desc limit ? offset ?`,
      [...params, input.limit, input.offset],
    ),
    em.execute<{ total: number }[]>(`select count(*)::int as total from event where ${where}`, params),
  ]);
  return {
    events: rows.map(toEventOutput),
    pagination: { total: count!.total, limit: input.limit, offset: input.offset },
  };
}
