import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamReader } from './helpers/event-stream.ts';
import { everyTargetUp, promtoolCheck, startPrometheus } from './helpers/prometheus.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';
import { subscribe } from './helpers/webhook-scenario.ts';

/**
 * api.md, "Running as many instances": `GET /metrics` on METRICS_PORT (unset: no listener),
 * bound to METRICS_HOST, in Prometheus' text format, names after OpenTelemetry's conventions.
 * Checked by `promtool` and scraped by a real Prometheus (Debian's `prometheus`).
 */
let t: TestApp;
let second: TestApp;

beforeAll(async () => {
  t = await startTestApp({ METRICS_PORT: '0' });
  second = await startTestApp({ METRICS_PORT: '0' }, { databaseUrl: t.databaseUrl });
});
afterAll(async () => {
  await second?.close();
  await t?.close();
});

const scrape = async (app: TestApp) => {
  const response = await fetch(`${app.app.metricsUrl}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
};

/** The value of one series, by its exact name and labels as written in the scrape. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics', () => {
  it('no METRICS_PORT: no listener', async () => {
    const plain = await startTestApp({}, { databaseUrl: t.databaseUrl });
    try {
      expect(plain.app.metricsUrl).toBeUndefined();
      expect(plain.logs()).not.toContain('metrics');
    } finally {
      await plain.close();
    }
  });

  it('listens on METRICS_HOST (loopback by default), on its own port, and answers only GET /metrics', async () => {
    const url = new URL(t.app.metricsUrl!);
    expect(url.hostname).toBe('127.0.0.1');
    expect(url.port).not.toBe(new URL(t.url).port);
    expect((await fetch(`${t.app.metricsUrl}/other`)).status).toBe(404);
    expect((await fetch(`${t.app.metricsUrl}/metrics`, { method: 'POST' })).status).toBe(404);
    // The API's port has no /metrics.
    expect((await fetch(`${t.url}/metrics`)).status).toBe(404);
  });

  it('request durations by method, documented route template and status; pool, loop, memory and queues', async () => {
    const user = await t.signedInClient();
    const deck = await user.post('/api/decks', { name: 'Measured' });
    expect(deck.status).toBe(201);
    const deckId: string = deck.body.id;
    expect((await user.get(`/api/decks/${deckId}`)).status).toBe(200);
    expect((await user.get('/api/decks/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    // A method Node parses but no route serves: 501, counted under OpenTelemetry's `_OTHER`.
    expect((await user.request('PROPFIND', '/api/decks')).status).toBe(501);
    const text = await scrape(t);

    const of = (method: string, route: string, status: number) =>
      sample(
        text,
        `http_server_request_duration_seconds_count{http_request_method="${method}",http_route="${route}",http_response_status_code="${status}"}`,
      );
    expect(of('POST', '/api/decks', 201)).toBe(1);
    expect(of('GET', '/api/decks/{deckId}', 200)).toBe(1);
    expect(of('GET', '/api/decks/{deckId}', 404)).toBe(1);
    expect(of('POST', '/api/auth/login', 200)).toBe(1);
    // Never the raw path (a series per id), never a made-up method.
    expect(text).not.toContain(deckId);
    expect(text).not.toContain('PROPFIND');
    expect(of('_OTHER', '', 501)).toBe(1);
    expect(text).toMatch(
      /http_server_request_duration_seconds_bucket\{le="0\.005",http_request_method="POST"/,
    );

    expect(sample(text, 'db_client_connections_max')).toBe(10);
    expect(sample(text, 'db_client_connections_usage{state="idle"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'db_client_connections_usage{state="used"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'db_client_connections_pending_requests')).toBe(0);
    expect(sample(text, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThan(0);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
    expect(sample(text, 'deck_notification_deliveries{status="pending"}')).toBe(0);
    expect(sample(text, 'deck_notification_deliveries{status="failed"}')).toBe(0);
    for (const status of ['pending', 'processing', 'completed', 'failed']) {
      expect(sample(text, `deck_generation_jobs{status="${status}"}`)).toBe(0);
    }
    for (const status of ['pending', 'processing', 'completed', 'failed', 'canceled']) {
      expect(sample(text, `deck_exports{status="${status}"}`)).toBe(0);
    }
    expect(sample(text, 'deck_queue_scrape_success')).toBe(1);
    expect(sample(text, 'deck_event_streams_open')).toBe(0);
    expect(sample(text, 'deck_extraction_queue_length')).toBe(0);
  });

  it('counts the event streams open on the instance, and forgets one that closed', async () => {
    const user = await t.signedInClient();
    const reader = new StreamReader(t.url, '', { cookie: user.cookieHeader });
    try {
      await reader.opened();
      expect(sample(await scrape(t), 'deck_event_streams_open')).toBe(1);
    } finally {
      reader.close();
    }
    await eventually(async () => sample(await scrape(t), 'deck_event_streams_open') === 0);
  });

  it('the queue gauges count what waits in the shared database, on every instance', async () => {
    const user = await t.signedInClient();
    // A webhook subscription to a receiver that is never reached: its delivery waits.
    await subscribe(user, 'https://hooks.example.test/deck', { eventType: 'deck.*' });
    expect((await user.post('/api/decks', { name: 'Announced' })).status).toBe(201);
    const pendingNow = async (app: TestApp) =>
      sample(await scrape(app), 'deck_notification_deliveries{status="pending"}') ?? 0;
    // The event becomes a delivery in the background; it stays pending (its receiver never answers).
    const pendingRows = async () =>
      (
        await t.app.database.orm.em
          .getConnection()
          .execute<{ n: number }[]>(
            `select count(*)::int as n from notification_delivery where status = 'pending'`,
          )
      )[0]!.n;
    while ((await pendingRows()) === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    const pending = await pendingRows();
    expect(pending).toBeGreaterThan(0);
    expect(await pendingNow(t)).toBe(pending);
    expect(await pendingNow(second)).toBe(pending);
  });

  it('counts exports by status in the shared database, and times each on the instance that ended it', async () => {
    const user = await t.signedInClient();
    const deckId = (await user.post('/api/decks', { name: 'Exported' })).body.id;
    const created = await user.post(`/api/decks/${deckId}/exports`, { format: 'pdf' });
    expect(created.status).toBe(202);
    const status = await eventually(async () => {
      const answer = (await user.get(`/api/exports/${created.body.id}`)).body.status;
      return ['completed', 'failed'].includes(answer) && answer;
    }, 60_000);
    for (const app of [t, second])
      expect(sample(await scrape(app), `deck_exports{status="${status}"}`)).toBe(1);
    const timed = async (app: TestApp) =>
      sample(await scrape(app), 'deck_export_render_seconds_count{format="pdf"}') ?? 0;
    await eventually(async () => (await timed(t)) + (await timed(second)) === 1);
  });

  it('promtool finds nothing wrong with a scrape', async () => {
    const result = await promtoolCheck(await scrape(t));
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  });

  it('a real Prometheus scrapes every instance', async () => {
    expect((await second.client().get('/healthz')).status).toBe(200);
    const targets = [t, second].map((app) => new URL(app.app.metricsUrl!).host);
    const prometheus = await startPrometheus(targets);
    try {
      const up = await everyTargetUp(prometheus, 2);
      expect(up.map((target) => new URL(target.scrapeUrl).host).sort()).toEqual([...targets].sort());
      const { result } = await prometheus.api<{
        result: { metric: { instance: string }; value: [number, string] }[];
      }>(
        `query?query=${encodeURIComponent('sum by (instance) (http_server_request_duration_seconds_count)')}`,
      );
      expect(result.map((series) => series.metric.instance).sort()).toEqual([...targets].sort());
      for (const series of result) expect(Number(series.value[1])).toBeGreaterThan(0);
    } finally {
      await prometheus.close();
    }
  }, 60_000);
});
