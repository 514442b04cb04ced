import { z } from 'zod';
import * as eventLog from '../../domain/events/event-log.ts';
import { eventOutput, storedEventOutput } from '../../domain/events/event-output.ts';
import { compiledOutput } from '../compiled-output.ts';
import { eventFilterFields } from '../events/event-filter.schema.ts';
import { paginationInput, paginationOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const listEventsInput = z
  .strictObject({
    ...eventFilterFields,
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
        "The organization's event log, newest first: filter by `eventType` (exact, `prefix.*` or `*`), `aggregateType`, `aggregateId`, `deckId` (the deck's events and those of everything in it), `since` (inclusive) and `until` (exclusive), as on the stream; a filter narrows `pagination.total` too. Page with `limit` and `offset`, or with `after` (the previous page's `pagination.nextAfter`), which costs the same on every page. Events a caller's access may not see (API keys' events below owner) are left out.",
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
