import { createServer, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { problem } from './problem.ts';

/**
 * Node's HTTP server with limits of its own, before Koa sees a request: slow clients cannot
 * hold a connection open forever (the request line and headers, and the whole request, have
 * deadlines, checked every second), an idle connection closes after `keepAliveTimeoutMs` (behind
 * a balancer, longer than the balancer keeps it: decision 054), and what Node refuses by itself —
 * headers past its 16 KB limit (431; a long query string counts), a request that ran out of time
 * (408), broken framing (400) — is answered as problem details like every other error, not a bare
 * status.
 */
export function createHttpServer(
  handler: RequestListener,
  limits: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number },
): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: 1000,
    },
    handler,
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // A reset connection, or one whose response has begun: nothing more can be said on it.
    if (
      error.code === 'ECONNRESET' ||
      !socket.writable ||
      (socket as { _httpMessage?: unknown })._httpMessage
    ) {
      socket.destroy();
      return;
    }
    const status =
      error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const answer = problem(
      status,
      status === 431
        ? 'The request line and headers are too large (a long query string counts)'
        : status === 408
          ? 'The request did not arrive in time'
          : 'The request is not valid HTTP',
    );
    const body = JSON.stringify(answer);
    socket.end(
      `HTTP/1.1 ${status} ${answer.title}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}
