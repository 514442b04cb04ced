import http from 'node:http';
import { EventSource } from 'eventsource';
import { ALL_EVENT_TYPES } from '../../domain/events/event-output.ts';

/** One SSE message of the live event stream, as a browser's EventSource hands it over. */
export interface StreamMessage {
  id: string;
  type: string;
  data: { id: string; eventType: string; aggregateId: string; payload: Record<string, unknown> };
}

/**
 * A real SSE client (the `eventsource` package, WHATWG's EventSource for Node) on
 * `/api/notifications/events/stream`: it reconnects by itself with `Last-Event-ID`, as a browser does.
 */
export class StreamReader {
  readonly messages: StreamMessage[] = [];
  readonly source: EventSource;
  opens = 0;
  /** Statuses of refused (re)connections. */
  readonly refusals: number[] = [];

  constructor(baseUrl: string, query: string, headers: Record<string, string>) {
    this.source = new EventSource(`${baseUrl}/api/notifications/events/stream${query}`, {
      fetch: async (input, init) => {
        const merged = new Headers(init?.headers);
        for (const [name, value] of Object.entries(headers)) merged.set(name, value);
        const response = await fetch(input, { ...init, headers: merged });
        if (response.status !== 200) this.refusals.push(response.status);
        return response;
      },
    });
    this.source.addEventListener('open', () => {
      this.opens += 1;
    });
    for (const type of ALL_EVENT_TYPES) {
      this.source.addEventListener(type, (message) => {
        this.messages.push({ id: message.lastEventId, type: message.type, data: JSON.parse(message.data) });
      });
    }
  }

  /** Resolves once the stream is open. */
  opened(): Promise<void> {
    if (this.source.readyState === EventSource.OPEN) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.source.addEventListener('open', () => resolve(), { once: true });
      this.source.addEventListener(
        'error',
        (error) => reject(new Error(`stream refused: ${error.message}`)),
        {
          once: true,
        },
      );
    });
  }

  get ids(): string[] {
    return this.messages.map((message) => message.id);
  }

  close(): void {
    this.source.close();
  }
}

/**
 * A raw HTTP reader of a stream that can stop reading (its socket paused): what the server sees
 * of a consumer too slow to keep up. `ended` resolves when the server closes the connection.
 */
export function rawStream(url: string, headers: Record<string, string>) {
  let response: http.IncomingMessage | undefined;
  const request = http.get(url, { headers, agent: false });
  const opened = new Promise<http.IncomingMessage>((resolve, reject) => {
    request.on('response', (answer) => {
      response = answer;
      resolve(answer);
    });
    request.on('error', reject);
  });
  const ended = opened.then(
    (answer) =>
      new Promise<void>((resolve) => {
        answer.on('close', resolve);
        answer.on('error', () => resolve());
        request.on('close', resolve);
      }),
  );
  return {
    opened,
    ended,
    /** Stops reading: the socket's buffers fill, then the server's. */
    pause() {
      response?.pause();
      request.socket?.pause();
    },
    /** Reads again: what the socket holds, then the server's end if it cut the connection meanwhile. */
    resume() {
      request.socket?.resume();
      response?.resume();
    },
    destroy() {
      request.destroy();
    },
  };
}
