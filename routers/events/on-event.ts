import { tracked } from '@trpc/server';
import { z } from 'zod';
import type { EventOutput } from '../../domain/events/event-output.ts';
import { followEvents } from '../../domain/events/live-events.ts';
import { authedProcedure } from '../trpc.ts';
import { eventFilterFields } from './event-filter.schema.ts';

export const onEventInput = z
  .strictObject({
    ...eventFilterFields,
    lastEventId: z.string().max(100).optional().meta({
      description:
        'Resume after this event (what `Last-Event-ID` carries, which wins when both are sent): every later event first, then live; an id the caller cannot see in the log is a 400',
    }),
  })
  .meta({ description: 'Filters of the live event stream' });

/** The event log as it grows: each event as `tracked(id, event)`, so a client resumes by itself. */
export const onEvent = authedProcedure
  .meta({
    access: 'read',
    stream: {
      path: '/notifications/events/stream',
      tags: ['notifications'],
      summary: 'Follow the event log live (Server-Sent Events)',
      description:
        'Each new event of the organization, as one SSE message: `id` (the event id), `event` (its `eventType`) and `data` (the event exactly as `GET /notifications/events` returns it), within a second of its commit, on every instance. A `: keep-alive` comment at least every 15 s. Resume with `Last-Event-ID` (or `?lastEventId=`): the events after that one first, then live. The log’s filters apply, and the same access rules (API keys’ events need owner, users’ admin). The stream ends within a minute of its session or API key being revoked; at most STREAMS_PER_CALLER streams per caller and STREAMS_PER_ORGANIZATION per organization, on all instances together (429), and STREAMS_PER_INSTANCE on one instance (503: another may have room); past STREAM_BUFFER_BYTES behind, a consumer reads again from the log at its own pace, and one that takes nothing between two checks is disconnected (it resumes with `Last-Event-ID`). When the service stops, the stream ends with `retry: 1000` and the client reconnects, resuming where it was.',
    },
  })
  .input(onEventInput)
  .subscription(({ ctx, input, signal }) =>
    followEvents({ ...ctx, sessionTokenHash: ctx.session.tokenHash }, input, signal, trackedEvent),
  );

/** Each event with its id as tRPC's tracked id (one function for every stream). */
function trackedEvent(event: EventOutput) {
  return tracked(event.id, event);
}
