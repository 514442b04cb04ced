import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { isTrackedEnvelope } from '@trpc/server';
import type { Context as KoaContext, Middleware } from 'koa';
import type { EventOutput } from '../domain/events/event-output.ts';
import { eventJson, KEEP_ALIVE_MS } from '../domain/events/live-events.ts';
import type { RequestContext } from './edge.ts';
import { queryInput, readQuery } from './request-input.ts';
import type { StreamRoute } from './route.ts';

/**
 * A stream route (`meta.stream`): the subscription's own procedure, called through tRPC's caller as
 * every /api route is, its messages written as Server-Sent Events (api.md, "Live events"). Its
 * input is the query string plus `Last-Event-ID` (the header wins: a browser's EventSource
 * reconnects to the same address, query included, with the header of its last event). Whatever
 * the procedure refuses (400, 429) is answered as problem details before the stream opens.
 *
 * Each message: `id: <event id>`, `event: <eventType>`, `data: <the event as the log returns it>`;
 * a `: keep-alive` comment every 15 s. Written only as fast as the socket takes them: while the
 * client does not read, the stream's own bounded buffer fills, and past it the domain disconnects.
 */
export function streamRoute(
  route: StreamRoute,
  deps: {
    contextOf(ctx: KoaContext): Promise<RequestContext>;
    call(context: RequestContext, input: unknown, signal: AbortSignal): Promise<unknown>;
  },
): Middleware {
  return async (ctx) => {
    const context = await deps.contextOf(ctx);
    const input = queryInput(readQuery(ctx.querystring), route.shape, route.pathParameters);
    const lastEventId = ctx.get('last-event-id');
    if (lastEventId) input.lastEventId = lastEventId;
    const res = ctx.res;
    const left = new AbortController();
    const closed = once(res, 'close').then(() => left.abort());
    const { socket } = ctx.req;
    context.disconnect = () => socket.destroy();
    const messages = (await deps.call(context, input, left.signal)) as AsyncIterable<unknown>;
    // Koa keeps the request's context until the answer ends: the stream needs nothing of its state
    // (the caller and the session's hash are the stream's own), so it is let go now.
    ctx.state.context = undefined;

    ctx.respond = false;
    res.writeHead(200, {
      ...ctx.response.headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // Proxies that buffer answers (nginx) pass this one through as it is written.
      'x-accel-buffering': 'no',
    });
    res.write(': stream open\n\n');
    // The stream runs on its own: the middleware chain (and its request log line) ends now, so that an
    // idle stream holds its connection and its follower, not a dozen suspended middleware frames.
    const { state } = ctx;
    pump(messages, res, closed).catch((error: unknown) => {
      state.logger?.error({ err: error }, 'event stream failed');
      res.destroy();
    });
  };
}

/** Writes each message as the socket takes it, a keep-alive between; ends the answer when the stream ends. */
async function pump(
  messages: AsyncIterable<unknown>,
  res: ServerResponse,
  closed: Promise<void>,
): Promise<void> {
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  try {
    for await (const message of messages) {
      if (!res.write(frameOf(message))) await Promise.race([once(res, 'drain'), closed]);
    }
  } finally {
    clearInterval(keepAlive);
    res.end();
  }
}

/** One SSE message: a tracked value's id, the event's type as the message's, its JSON as data. */
function frameOf(message: unknown): string {
  const [id, value] = isTrackedEnvelope(message) ? message : [undefined, message];
  const type = (value as Partial<EventOutput>).eventType;
  return `${id === undefined ? '' : `id: ${id}\n`}${type ? `event: ${type}\n` : ''}data: ${eventJson(value as EventOutput)}\n\n`;
}
