import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { isTrackedEnvelope } from '@trpc/server';
import type { Context as KoaContext, Middleware } from 'koa';
import type { EventOutput } from '../domain/events/event-output.ts';
import { eventJson, KEEP_ALIVE_MS } from '../domain/events/live-events.ts';
import type { Logger } from '../domain/ports/logger.ts';
import type { RequestContext } from './edge.ts';

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
export function streamRoute(deps: {
  contextOf(ctx: KoaContext): Promise<RequestContext>;
  /** The input the query string gives (checked and converted by the dispatcher). */
  input(ctx: KoaContext): Record<string, unknown>;
  call(context: RequestContext, input: unknown): Promise<unknown>;
}): Middleware {
  return async (ctx) => {
    const context = await deps.contextOf(ctx);
    const input = deps.input(ctx);
    const lastEventId = ctx.get('last-event-id');
    if (lastEventId) input.lastEventId = lastEventId;
    const sink = new EventSink(ctx.res, ctx.state);
    context.disconnect = destroyer(ctx.req.socket);
    const messages = (await deps.call(context, input)) as AsyncIterator<unknown>;
    // Koa keeps the request's context until the answer ends: the stream needs nothing of its state
    // (the caller and the session's hash are the stream's own), so it is let go now.
    ctx.state.context = undefined;

    ctx.respond = false;
    ctx.res.writeHead(200, {
      ...ctx.response.headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // Proxies that buffer answers (nginx) pass this one through as it is written.
      'x-accel-buffering': 'no',
    });
    ctx.res.write(': stream open\n\n');
    // The stream runs on its own: the middleware chain (and its request log line) ends now, so that an
    // idle stream holds its connection and its sink, not a dozen suspended middleware frames.
    sink.start(messages);
    // Koa's hook for the answer's end (on-finished, on every answer) holds the request's whole Koa
    // context (request, response, session, cookies) and five listeners until the answer finishes,
    // which a stream's does not while it is open: 3.7 of an idle stream's 12.8 KB (bench:streams).
    // It waits for `finish` or `end`; a ServerResponse never emits `end` (a request does), so `end`
    // tells that hook alone that Koa is done here: it calls Koa's onerror without an error (which
    // does nothing) and removes its listeners. The stream's own `close` listener stays.
    ctx.res.emit('end');
  };
}

/**
 * A stream's last words when the service ends it (a graceful stop): a comment and `retry:`, so an
 * EventSource reconnects after a second (behind a balancer, to another instance) with its
 * `Last-Event-ID`; then the answer's end (the chunked terminator), so no client sees a cut.
 */
export const STREAM_GOODBYE = ': the service is stopping; reconnect\nretry: 1000\n\n';

/** How each open SSE answer (REST's and /trpc's subscriptions) ends cleanly, by its response. */
const enders = new WeakMap<ServerResponse, () => void>();

/** Registers how `res`, an SSE answer, ends cleanly at a graceful stop. */
export function endsCleanly(res: ServerResponse, end: () => void): void {
  enders.set(res, end);
}

/** At a graceful stop: ends `res` with STREAM_GOODBYE if it is an open SSE answer. */
export function endEventStream(res: ServerResponse): void {
  enders.get(res)?.();
}

/** Ends the connection at once; a function of its own, so that it holds the socket and nothing else. */
function destroyer(socket: Socket): () => void {
  return () => socket.destroy();
}

/** The open SSE answers of this process: one keep-alive timer serves them all. */
const open = new Set<ServerResponse>();
let keepAlive: NodeJS.Timeout | undefined;

function keepAlives(): void {
  for (const res of open) res.write(': keep-alive\n\n');
}

/**
 * Writes a stream's messages as the socket takes them, and ends the answer when the stream ends.
 * Driven by callbacks made once (no suspended `for await`); the answer's `close` ends the stream
 * through its iterator's `return` (no AbortController and listener per stream): an idle stream
 * holds this, its iterator's one pending promise and its socket.
 */
class EventSink {
  readonly #res: ServerResponse;
  readonly #state: { logger?: Logger };
  #messages: AsyncIterator<unknown> | undefined;
  #gone = false;

  constructor(res: ServerResponse, state: { logger?: Logger }) {
    this.#res = res;
    this.#state = state;
    // A client gone before now (while its session was looked up) has had its `close` already: the
    // stream would otherwise be held for nobody, counted against the caller's streams for good.
    this.#gone = res.closed || res.destroyed || !res.socket || res.socket.destroyed;
    res.on('close', this.#closed);
    endsCleanly(res, this.#end);
  }

  start(messages: AsyncIterator<unknown>): void {
    this.#messages = messages;
    // Gone while the stream opened: it ends now.
    if (this.#gone) {
      this.#closed();
      return;
    }
    open.add(this.#res);
    keepAlive ??= setInterval(keepAlives, KEEP_ALIVE_MS);
    this.#pull();
  }

  // Whatever throws here is the stream's failure, not an unhandled rejection or exception.
  readonly #pull = (): void => {
    try {
      this.#messages!.next().then(this.#write, this.#failed);
    } catch (error) {
      this.#failed(error);
    }
  };

  readonly #write = (result: IteratorResult<unknown>): void => {
    try {
      // Ended by the service meanwhile: nothing more is written.
      if (this.#res.writableEnded) return;
      // The stream ended (the service stops, or its connection was cut): said cleanly if it can be.
      if (result.done) this.#end();
      else if (this.#res.write(frameOf(result.value))) this.#pull();
      // Past the socket's buffer: the next message waits for it to drain (a closed answer ends the stream).
      else if (!this.#res.destroyed) this.#res.once('drain', this.#pull);
    } catch (error) {
      this.#failed(error);
    }
  };

  /** Ends the answer: STREAM_GOODBYE, then the terminator; the answer's `close` ends the stream. */
  readonly #end = (): void => {
    this.#stop();
    if (!this.#res.writableEnded && !this.#res.destroyed) this.#res.end(STREAM_GOODBYE);
  };

  readonly #failed = (error: unknown): void => {
    this.#state.logger?.error({ err: error }, 'event stream failed');
    this.#stop();
    this.#res.destroy();
  };

  readonly #closed = (): void => {
    this.#gone = true;
    this.#stop();
    this.#messages?.return?.().catch(this.#failed);
  };

  #stop(): void {
    open.delete(this.#res);
    if (open.size === 0 && keepAlive) {
      clearInterval(keepAlive);
      keepAlive = undefined;
    }
  }
}

/** One SSE message: a tracked value's id, the event's type as the message's, its JSON as data. */
function frameOf(message: unknown): string {
  const [id, value] = isTrackedEnvelope(message) ? message : [undefined, message];
  const type = (value as Partial<EventOutput>).eventType;
  return `${id === undefined ? '' : `id: ${id}\n`}${type ? `event: ${type}\n` : ''}data: ${eventJson(value as EventOutput)}\n\n`;
}
