import { z } from 'zod';
import * as eventLog from '../../domain/events/event-log.ts';
import { eventOutput, storedEventOutput } from '../../domain/events/event-output.ts';
import { compiledOutput } from '../compiled-output.ts';
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
    after: z.uuid().optional().meta({
      description:
        'The page after this event, in log order (the previous page’s `pagination.nextAfter`); not with a non-zero `offset`',
    }),
  })
  .meta({ description: 'Filters of the event log' });

const eventPagination = paginationOutput
  .extend({
    nextAfter: z.uuid().nullable().meta({
      description: 'Pass as `after` for the next page; null on the last page',
    }),
  })
  .meta({ id: 'EventPagination' });

export const listEvents = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/notifications/events',
      tags: ['notifications'],
      summary: 'Read the event log',
      description:
        "The organization's event log, newest first: filter by `eventType` (exact or `prefix.*`), `aggregateType`, `aggregateId`, `since` (inclusive) and `until` (exclusive); page with `limit` and `offset`, or with `after` (the previous page's `pagination.nextAfter`), which costs the same on every page. Events a caller's access may not see (API keys' events below owner) are left out.",
    },
  })
  .input(listEventsInput)
  .output(
    compiledOutput(z.object({ events: z.array(eventOutput), pagination: eventPagination }), {
      // Events are history: served as they were written (see storedEventOutput).
      checkedAs: z.object({ events: z.array(storedEventOutput), pagination: eventPagination }),
    }),
  )
  .query(({ ctx, input }) => eventLog.listEvents(ctx, input));
