import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../app/config.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/** Sends raw bytes and collects everything the server answers until it closes the connection. */
function rawExchange(url: string, chunks: string[]): Promise<{ text: string; elapsedMs: number }> {
  const { hostname, port } = new URL(url);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      for (const chunk of chunks) socket.write(chunk);
    });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (data) => {
      text += data;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve({ text, elapsedMs: performance.now() - started }));
  });
}

function parse(text: string) {
  const [head, body] = text.split('\r\n\r\n');
  const [statusLine, ...headers] = head!.split('\r\n');
  return {
    status: Number(statusLine!.split(' ')[1]),
    contentType: headers.find((h) => h.toLowerCase().startsWith('content-type:'))?.split(': ')[1],
    body: JSON.parse(body!) as { status: number; code: string; detail: string },
  };
}

describe('what Node refuses before Koa sees a request', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      HTTP_HEADERS_TIMEOUT_MS: '1000',
      HTTP_REQUEST_TIMEOUT_MS: '2000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
    });
  });
  afterAll(() => t.close());

  it('a query string past the header limit is a 431 problem', async () => {
    const { text } = await rawExchange(t.url, [
      `GET /api/notifications/events?eventType=${'q'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    ]);
    const answer = parse(text);
    expect(answer.status).toBe(431);
    expect(answer.contentType).toBe('application/problem+json');
    expect(answer.body).toMatchObject({ status: 431, code: 'REQUEST_HEADER_FIELDS_TOO_LARGE' });
  });

  it('a request that is not HTTP is a 400 problem', async () => {
    const answer = parse((await rawExchange(t.url, ['HELLO THERE\r\n\r\n'])).text);
    expect(answer.status).toBe(400);
    expect(answer.contentType).toBe('application/problem+json');
    expect(answer.body.code).toBe('BAD_REQUEST');
  });

  it('headers that never finish are cut off with a 408 problem (slow loris)', async () => {
    const { text, elapsedMs } = await rawExchange(t.url, ['GET /healthz HTTP/1.1\r\nHost: x\r\n']);
    const answer = parse(text);
    expect(answer.status).toBe(408);
    expect(answer.body.code).toBe('REQUEST_TIMEOUT');
    // The deadline is 1 s, checked every second.
    expect(elapsedMs).toBeGreaterThanOrEqual(900);
    expect(elapsedMs).toBeLessThan(4000);
  });

  it('a body that never finishes is cut off too', async () => {
    const { text, elapsedMs } = await rawExchange(t.url, [
      'POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":',
    ]);
    // Closed after the 2 s request deadline (Node's default would wait five minutes); Node
    // drops a request already handed to the app without an answer, so none is required.
    expect(elapsedMs).toBeGreaterThanOrEqual(1900);
    expect(elapsedMs).toBeLessThan(5000);
    expect(text === '' || parse(text).status === 408).toBe(true);
  });

  it('an idle connection stays open for HTTP_KEEP_ALIVE_TIMEOUT_MS, then the server closes it', async () => {
    const { hostname, port } = new URL(t.url);
    const socket = connect(Number(port), hostname);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (data) => {
      text += data;
    });
    const closedAt = new Promise<number>((resolve) => socket.on('close', () => resolve(performance.now())));
    const answered = () => text.split('HTTP/1.1 200 ').length - 1;
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await eventually(() => answered() === 1);
    expect(text).toMatch(/^keep-alive: timeout=1\r$/im);
    // Idle for less than that: the same connection takes the next request.
    await sleep(500);
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await eventually(() => answered() === 2);
    const idleSince = performance.now();
    // Node waits a second past the time it announces: about 2 s here, not its default 6.
    const idleFor = (await closedAt) - idleSince;
    expect(idleFor).toBeGreaterThanOrEqual(900);
    expect(idleFor).toBeLessThan(5000);
  });

  it('HTTP_KEEP_ALIVE_TIMEOUT_MS takes a second to an hour', () => {
    for (const value of [1000, 3_600_000]) {
      const config = loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: String(value) });
      expect(config.http.keepAliveTimeoutMs).toBe(value);
    }
    for (const value of ['999', '3600001', '1500.5', 'soon']) {
      expect(() => loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: value })).toThrow(ConfigError);
    }
  });
});
