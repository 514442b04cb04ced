import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSwiftS3 } from '../scripts/swift-s3.ts';
import { startElevenLabsStandIn } from './helpers/elevenlabs-stand-in.ts';
import { png } from './helpers/files.ts';
import { HttpClient } from './helpers/http-client.ts';
import { startServerProcess } from './helpers/processes.ts';
import { createTestDatabase } from './helpers/test-app.ts';
import { eventually, startWebhookReceiver } from './helpers/webhook-receiver.ts';
import { subscribe } from './helpers/webhook-scenario.ts';

/**
 * api.md, "Running as many instances": OpenTelemetry tracing, on with OTEL_EXPORTER_OTLP_ENDPOINT.
 * The real server process (`npm start`'s app/main.ts: ESM under type stripping, hooked at load)
 * sends its spans to an OTLP/HTTP collector run here; a request is one trace whose HTTP, procedure
 * and SQL spans nest; outgoing calls carry `traceparent`; its log lines carry `trace_id`.
 */
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string } }[];
}

const spans: Span[] = [];
const DEMO_PASSWORD = `demo-${randomBytes(8).toString('hex')}`;
const ELEVENLABS_KEY = 'trace-test-key';
const cleanup: (() => Promise<unknown>)[] = [];
let server: Awaited<ReturnType<typeof startServerProcess>>;
let databaseUrl: string;
/** Reports the modules a server process loads (test/helpers/module-probe.ts). */
const PROBE = ['--import', './test/helpers/module-probe.ts'];
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let eleven: Awaited<ReturnType<typeof startElevenLabsStandIn>>;
/** Headers of the requests the service sent to the object store (through `forwardTo`). */
const storageRequests: http.IncomingHttpHeaders[] = [];

/** An HTTP hop in front of the object store that records each request's headers and passes it on as it is. */
async function forwardTo(target: string) {
  const upstream = new URL(target);
  const hop = http.createServer((request, response) => {
    storageRequests.push(request.headers);
    const onward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: request.method,
        path: request.url,
        headers: request.headers,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    request.pipe(onward);
  });
  await new Promise<void>((resolve) => hop.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(hop.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => hop.close(() => resolve())),
  };
}

/** OTLP over HTTP with JSON bodies (OTEL_EXPORTER_OTLP_PROTOCOL=http/json): what a collector receives. */
async function startCollector() {
  const collector = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces') {
        const payload = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] };
        for (const resource of payload.resourceSpans) {
          for (const scope of resource.scopeSpans) spans.push(...scope.spans);
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => collector.close(() => resolve())),
  };
}

beforeAll(async () => {
  const collector = await startCollector();
  cleanup.push(() => collector.close());
  receiver = await startWebhookReceiver();
  cleanup.push(() => receiver.close());
  eleven = await startElevenLabsStandIn(ELEVENLABS_KEY);
  cleanup.push(() => eleven.close());
  const swift = await startSwiftS3();
  cleanup.push(() => swift.stop());
  await swift.createBucket('traced');
  const hop = await forwardTo(swift.endpoint);
  cleanup.push(() => hop.close());
  databaseUrl = await createTestDatabase();
  server = await startServerProcess(
    {
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_FORMAT: 'json',
      SEED_DEMO: 'true',
      DEMO_PASSWORD,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      NOTIFICATIONS_POLL_INTERVAL_MS: '100',
      ELEVENLABS_API_KEY: ELEVENLABS_KEY,
      ELEVENLABS_BASE_URL: eleven.url,
      ELEVENLABS_DEFAULT_VOICE_ID: 'v-rachel',
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: hop.url,
      S3_BUCKET: 'traced',
      S3_ACCESS_KEY_ID: swift.accessKeyId,
      S3_SECRET_ACCESS_KEY: swift.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      MODULE_PROBE: 'node_modules/@opentelemetry/sdk-node/',
    },
    { nodeArgs: PROBE },
  );
  cleanup.push(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });
}, 60_000);
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

const attribute = (span: Span, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? value?.intValue;
};

/** The log lines the server wrote for one request (by its X-Request-Id). */
const logLinesOf = (requestId: string) =>
  server
    .output()
    .split('\n')
    .filter((line) => line.includes(requestId))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

async function signIn(): Promise<HttpClient> {
  const user = new HttpClient(server.url);
  const answer = await user.post('/api/auth/login', { email: 'demo@example.com', password: DEMO_PASSWORD });
  expect(answer.status).toBe(200);
  return user;
}

describe('tracing', () => {
  it('one request is one trace: the HTTP span, its procedure span, SQL spans beneath; its log line has the trace_id', async () => {
    const user = await signIn();
    const requestId = `trace-${randomBytes(6).toString('hex')}`;
    const answer = await user.get('/api/decks', { 'x-request-id': requestId });
    expect(answer.status).toBe(200);

    // The server writes its log lines asynchronously: the request's comes just after its answer.
    const line = await eventually(() => logLinesOf(requestId).find((entry) => entry.msg === 'request'));
    const traceId = line.trace_id as string;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(line.span_id).toMatch(/^[0-9a-f]{16}$/);

    const trace = await eventually(() => {
      const found = spans.filter((span) => span.traceId === traceId);
      return (
        found.some((span) => span.name.startsWith('trpc ')) && found.some((span) => span.kind === 2) && found
      );
    });
    const byId = new Map(trace.map((span) => [span.spanId, span]));
    const ancestors = (span: Span) => {
      const chain: Span[] = [];
      for (
        let parent = byId.get(span.parentSpanId ?? '');
        parent;
        parent = byId.get(parent.parentSpanId ?? '')
      ) {
        chain.push(parent);
      }
      return chain;
    };
    // One root: the server span of GET /api/decks (kind 2 = SERVER), with the route template.
    const roots = trace.filter((span) => !span.parentSpanId);
    expect(roots).toHaveLength(1);
    expect(roots[0]!.kind).toBe(2);
    expect(attribute(roots[0]!, 'http.route') ?? roots[0]!.name).toContain('/api/decks');
    const procedure = trace.find((span) => span.name === 'trpc decks.listDecks');
    expect(procedure, trace.map((span) => span.name).join(', ')).toBeDefined();
    expect(ancestors(procedure!)).toContain(roots[0]);
    const sql = trace.filter(
      (span) =>
        attribute(span, 'db.system') === 'postgresql' || attribute(span, 'db.system.name') === 'postgresql',
    );
    expect(sql.length).toBeGreaterThan(0);
    // The deck list's own statement runs inside the procedure.
    expect(sql.some((span) => ancestors(span).includes(procedure!))).toBe(true);
    for (const span of sql) expect(ancestors(span)).toContain(roots[0]);
  });

  it('an outgoing webhook carries traceparent, and so does a call to the speech service', async () => {
    const user = await signIn();
    await subscribe(user, receiver.url, { eventType: 'deck.*' });
    expect((await user.post('/api/decks', { name: 'Traced deck' })).status).toBe(201);
    const delivered = await eventually(() =>
      receiver.received.find((message) => message.body?.type === 'deck.created'),
    );
    expect(delivered.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);

    expect((await user.get('/api/voices/list')).status).toBe(200);
    const voicesCall = eleven.requests.find((request) => request.url.startsWith('/v1/voices'));
    expect(voicesCall?.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
  });

  it('a call to the object store carries the trace of the request that made it', async () => {
    const user = await signIn();
    const requestId = `store-${randomBytes(6).toString('hex')}`;
    const before = storageRequests.length;
    const upload = await user.request('POST', '/api/images', {
      body: (() => {
        const form = new FormData();
        form.set('file', new Blob([new Uint8Array(png(4, 4))], { type: 'image/png' }), 'a.png');
        return form;
      })(),
      headers: { 'x-request-id': requestId },
    });
    expect(upload.status, upload.text).toBe(201);
    const line = await eventually(() => logLinesOf(requestId).find((entry) => entry.msg === 'request'));
    const traceId = line.trace_id as string;
    const sent = storageRequests.slice(before).filter((headers) => headers.traceparent);
    expect(sent.length).toBeGreaterThan(0);
    for (const headers of sent) expect(String(headers.traceparent).split('-')[1]).toBe(traceId);
  });

  it('off (no OTEL_EXPORTER_OTLP_ENDPOINT): the SDK and the loader hooks are not even loaded', async () => {
    const plain = await startServerProcess(
      {
        DATABASE_URL: databaseUrl,
        PORT: '0',
        HOST: '127.0.0.1',
        SEED_DEMO: 'false',
        MODULE_PROBE: 'node_modules/',
      },
      { nodeArgs: PROBE },
    );
    try {
      const loaded = plain
        .output()
        .split('\n')
        .filter((line) => line.startsWith('module-probe: '));
      // The probe works: the service's own packages show up.
      expect(loaded.some((line) => line.includes('/node_modules/koa/'))).toBe(true);
      expect(
        loaded.filter((line) => /@opentelemetry\/(sdk-|instrumentation)|in-the-middle/.test(line)),
      ).toEqual([]);
      // And on, the same probe sees them.
      expect(server.output()).toContain('/node_modules/@opentelemetry/sdk-node/');
    } finally {
      plain.child.kill('SIGTERM');
      await plain.exited;
    }
  });
});
