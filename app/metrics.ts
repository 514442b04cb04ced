import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { openEventStreams } from '../adapters/events/live-hub.ts';
import type { Logger } from '../domain/ports/logger.ts';
import type { Services } from '../domain/services.ts';
import { EXPORT_STATUSES } from '../entities/ExportJob.ts';
import { JOB_STATUSES } from '../entities/GenerationJob.ts';
import { DELIVERY_STATUSES } from '../entities/NotificationDelivery.ts';
import type { RequestObserver } from '../rest/middleware.ts';

/** OpenTelemetry's advice for `http.server.request.duration`, in seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
/** Methods kept as they are; any other is `_OTHER` (OpenTelemetry's rule: a scanner's made-up verbs make no series). */
const KNOWN_METHODS = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'TRACE',
  'CONNECT',
]);

/** Seconds an export takes, from a fraction of a second (a small PDF) to minutes (a long video). */
const EXPORT_BUCKETS = [0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600];

interface QueueCount {
  kind: 'delivery' | 'job' | 'export';
  status: string;
  n: number;
}

export interface Metrics {
  /** For `requestLogging` (rest/middleware.ts): each request's duration, by method, route and status. */
  observeRequest: RequestObserver;
  /** For the export worker (app/workers/export-runner.ts): how long each export that ended took. */
  observeExport(format: string, seconds: number): void;
  /** The `/metrics` listener's address, e.g. http://127.0.0.1:9464. */
  url: string;
  close(): Promise<void>;
}

/**
 * `GET /metrics` in Prometheus' text format on its own listener (api.md, "Running as many
 * instances"; decision 055), with prom-client: request durations by route template, the
 * database pool, Node's own (event-loop delay, memory, GC, CPU), and the service's queues.
 * The queue gauges come from the shared database at scrape time, so every instance reports the
 * same totals (aggregate them with `max`, not `sum`); the pool, the extraction queue and the
 * open streams are this instance's own.
 */
export async function startMetrics(
  orm: MikroORM,
  services: Services,
  settings: { port: number; host: string },
  logger: Logger,
): Promise<Metrics> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Counts of handles, requests and resources named *_total although they are gauges: promtool
  // refuses them, and they say little the event-loop delay does not.
  for (const name of [
    'nodejs_active_handles_total',
    'nodejs_active_requests_total',
    'nodejs_active_resources_total',
  ]) {
    registry.removeSingleMetric(name);
  }

  const duration = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Duration of HTTP server requests',
    labelNames: ['http_request_method', 'http_route', 'http_response_status_code'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });

  const pool = (await orm.em.getConnection().getNativeClient()) as Pool;
  const poolMax = pool.options.max ?? 10;
  // OpenTelemetry's db.client.connections.* (the names promtool accepts for gauges).
  new Gauge({
    name: 'db_client_connections_usage',
    help: 'Connections of the database pool, by state (idle or used)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      this.set({ state: 'idle' }, pool.idleCount);
      this.set({ state: 'used' }, pool.totalCount - pool.idleCount);
    },
  });
  new Gauge({
    name: 'db_client_connections_max',
    help: 'Most connections the database pool may open',
    registers: [registry],
    collect() {
      this.set(poolMax);
    },
  });
  new Gauge({
    name: 'db_client_connections_pending_requests',
    help: 'Requests waiting for a connection of the database pool',
    registers: [registry],
    collect() {
      this.set(pool.waitingCount);
    },
  });

  // One statement at scrape time counts deliveries and jobs for the gauges below: prom-client
  // collects every metric at once, so the first to ask starts it and the others share it.
  let reading: Promise<QueueCount[] | undefined> | undefined;
  const queueCounts = () =>
    (reading ??= orm.em
      .getConnection()
      .execute<QueueCount[]>(
        `select 'delivery' as kind, status, count(*)::int as n from notification_delivery
           where status in ('pending', 'failed') group by status
         union all
         select 'job', status, count(*)::int from generation_job group by status
         union all
         select 'export', status, count(*)::int from export_job where deck_id is not null group by status`,
      )
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'metrics: the queue counts could not be read');
        return undefined;
      })
      .finally(() => {
        reading = undefined;
      }));
  const countsGauge = (name: string, help: string, kind: QueueCount['kind'], statuses: readonly string[]) =>
    new Gauge({
      name,
      help,
      labelNames: ['status'] as const,
      registers: [registry],
      async collect() {
        const rows = await queueCounts();
        this.reset();
        // A database that does not answer leaves the counts out (deck_queue_scrape_success says so).
        if (!rows) return;
        for (const status of statuses) this.set({ status }, 0);
        for (const row of rows) if (row.kind === kind) this.set({ status: row.status }, row.n);
      },
    });
  countsGauge(
    'deck_notification_deliveries',
    'Notification deliveries waiting to be sent (pending) or given up (failed), all instances',
    'delivery',
    DELIVERY_STATUSES.filter((status) => status !== 'succeeded'),
  );
  countsGauge(
    'deck_generation_jobs',
    'Narration generation jobs by status, all instances',
    'job',
    JOB_STATUSES,
  );
  countsGauge('deck_exports', 'Deck exports by status, all instances', 'export', EXPORT_STATUSES);
  const exportSeconds = new Histogram({
    name: 'deck_export_render_seconds',
    help: 'Time each export that ended on this instance took, from its claim to its end (the deck read, its objects copied, rendered, stored), by format',
    labelNames: ['format'] as const,
    buckets: EXPORT_BUCKETS,
    registers: [registry],
  });
  new Gauge({
    name: 'deck_queue_scrape_success',
    help: '1 when the delivery, job and export counts were read from the database at this scrape',
    registers: [registry],
    async collect() {
      this.set((await queueCounts()) ? 1 : 0);
    },
  });
  new Gauge({
    name: 'deck_event_streams_open',
    help: 'Live event streams open on this instance (SSE and tRPC subscriptions)',
    registers: [registry],
    collect() {
      this.set(openEventStreams());
    },
  });
  new Gauge({
    name: 'deck_extraction_queue_length',
    help: 'Documents waiting for a text-extraction reader on this instance',
    registers: [registry],
    collect() {
      this.set(services.textExtractor.queued?.() ?? 0);
    },
  });

  const server: Server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => {
        logger.error({ err: error }, 'metrics: scrape failed');
        response.writeHead(500, { 'content-type': 'text/plain' }).end('scrape failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    observeRequest(method, route, status, seconds) {
      duration.observe(
        {
          http_request_method: KNOWN_METHODS.has(method) ? method : '_OTHER',
          http_route: route,
          http_response_status_code: status,
        },
        seconds,
      );
    },
    observeExport(format, seconds) {
      exportSeconds.observe({ format }, seconds);
    },
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
