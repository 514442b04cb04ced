import { z } from 'zod';
import { badRequest } from '../../domain/errors.ts';
import { paginationInput, paginationOutput, text, timestamp } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const listEventsInput = z
  .object({
    eventType: text().trim().min(1).max(100).optional(),
    aggregateType: text().trim().min(1).max(100).optional(),
    aggregateId: text().trim().min(1).max(200).optional(),
    since: timestamp().optional().meta({ description: 'Inclusive lower bound on occurredAt' }),
    until: timestamp().optional().meta({ description: 'Exclusive upper bound on occurredAt' }),
    ...paginationInput,
  })
  .meta({ description: 'Filters of the event log' });

export const eventOutput = z
  .object({
    id: z.uuid(),
    eventType: z.string(),
    aggregateType: z.string(),
    aggregateId: z.string(),
    occurredAt: z.iso.datetime(),
    payload: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'Event' });

interface EventRow {
  id: string;
  event_type: string;
  aggregate_type: string;
  aggregate_id: string;
  occurred_at: Date;
  payload: Record<string, unknown>;
}

/**
 * The organization's event log, newest first (occurredAt, then id), filtered and paged.
 * Each filter has an index leading with (organization, filter) and ending with the order,
 * so the page is read in index order and the count never touches other rows.
 */
export const listEvents = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/notifications/events',
      tags: ['notifications'],
      summary: 'Read the event log',
    },
  })
  .input(listEventsInput)
  .output(z.object({ events: z.array(eventOutput), pagination: paginationOutput }))
  .query(async ({ ctx, input }) => {
    if (input.since && input.until && Date.parse(input.since) >= Date.parse(input.until)) {
      throw badRequest('since must be earlier than until', [
        { path: ['until'], message: 'must be later than since' },
      ]);
    }
    const conditions = ['organization_id = ?'];
    const params: unknown[] = [ctx.auth.organizationId];
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
      ctx.em.execute<EventRow[]>(
        `select id, event_type, aggregate_type, aggregate_id, occurred_at, payload from event
          where ${where} order by occurred_at desc, id desc limit ? offset ?`,
        [...params, input.limit, input.offset],
      ),
      ctx.em.execute<{ total: number }[]>(`select count(*)::int as total from event where ${where}`, params),
    ]);
    return {
      events: rows.map((row) => ({
        id: row.id,
        eventType: row.event_type,
        aggregateType: row.aggregate_type,
        aggregateId: row.aggregate_id,
        occurredAt: new Date(row.occurred_at).toISOString(),
        payload: row.payload,
      })),
      pagination: { total: count!.total, limit: input.limit, offset: input.offset },
    };
  });
