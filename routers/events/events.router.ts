import { router } from '../trpc.ts';
import { onEvent } from './on-event.ts';

/** The live event log (tRPC subscriptions over SSE; `GET /api/notifications/events/stream`). */
export const eventsRouter = router({ onEvent });
