import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import Router from '@koa/router';
import Koa from 'koa';
import { createCommitSignals } from '../adapters/database/commit-signals.ts';
import { CommitListener, EVENT_CHANNEL } from '../adapters/events/commit-listener.ts';
import { LiveEventHub } from '../adapters/events/live-hub.ts';
import { deleteExpiredSessions } from '../domain/auth/callers.ts';
import type { Logger } from '../domain/ports/logger.ts';
import { announceCommittedWork } from '../domain/queued-work.ts';
import type { Services } from '../domain/services.ts';
import { allowedMethods, createApiRouter } from '../rest/dispatch.ts';
import { createDocsRouter } from '../rest/docs-page.ts';
import type { Edge } from '../rest/edge.ts';
import { endEventStream } from '../rest/event-stream.ts';
import { createHttpServer } from '../rest/http-server.ts';
import { problemDetails, type RequestObserver, requestLogging, sameOrigin } from '../rest/middleware.ts';
import { buildOpenApiDocument } from '../rest/openapi-document.ts';
import { problem, sendProblem } from '../rest/problem.ts';
import { createRequestContextFactory, sessionCookies } from '../rest/request-context.ts';
import { restRoutes } from '../rest/route-table.ts';
import { createLocalStorageRouter } from '../rest/storage-routes.ts';
import { createTrpcEndpoint, trpcErrorAnswer } from '../rest/trpc-endpoint.ts';
import { appRouter } from '../routers/app-router.ts';
import type { AppConfig } from './config.ts';
import { isLocalStorage } from './create-storage.ts';
import { type Database, openDatabase } from './database.ts';
import { startMetrics } from './metrics.ts';
import { loadSecrets } from './secrets.ts';
import { createEdge, createServices } from './services.ts';
import { createWorkers } from './workers/workers.ts';

export interface RunningApp {
  config: AppConfig;
  services: Services;
  /** The facade's own per-request limits (rate limiter, upload budget), and the instance's live streams. */
  edge: Edge & { liveEvents: LiveEventHub };
  database: Database;
  server: Server;
  /** e.g. http://127.0.0.1:3000 */
  url: string;
  /** The `/metrics` listener (METRICS_PORT), when there is one. */
  metricsUrl?: string;
  /** Stop accepting, finish in-flight requests, close the pool, stop the embedded database. */
  close(): Promise<void>;
}

/** Composes the Koa application: middleware order is the order requests pass through. */
export function createKoaApp(
  database: Database,
  services: Services,
  config: AppConfig,
  edge: Edge,
  observeRequest?: RequestObserver,
): { app: Koa; markShuttingDown(): void } {
  const { logger } = services;
  // No cookie signing keys: the session cookie is a random token checked against its hash.
  // Behind a proxy, the client address is the one that proxy appended to X-Forwarded-For
  // (the last entry), not the first, which the client writes itself (it would dodge the
  // per-address login throttle).
  const app = new Koa({ proxy: config.trustProxy, maxIpsCount: 1 });
  // Koa would print errors itself; the problem-details middleware already logged them.
  app.silent = true;
  let shuttingDown = false;

  const createContext = createRequestContextFactory(database.orm, services, edge);
  const health = new Router();
  health.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  health.get('/readyz', async (ctx) => {
    if (shuttingDown) return sendProblem(ctx, problem(503, 'Shutting down'));
    // A stalled database must not stall the probe: it answers within a second either way.
    if (!(await database.ping(1000))) {
      return sendProblem(ctx, problem(503, 'The database is not reachable'), 5);
    }
    try {
      await services.storage.check();
    } catch {
      return sendProblem(ctx, problem(503, 'The object store is not reachable'), 5);
    }
    ctx.body = { status: 'ready' };
  });

  const apiRouter = createApiRouter(restRoutes, { edge, createContext });

  app.use(requestLogging(logger, observeRequest));
  app.use(async (ctx, next) => {
    // While shutting down, keep-alive clients are told to reconnect (to another instance).
    if (shuttingDown) ctx.set('Connection', 'close');
    await next();
  });
  // Errors answered as problem details, on /trpc in tRPC's error shape (its client needs it).
  app.use(problemDetails(logger, { trpcErrors: trpcErrorAnswer(appRouter) }));
  // Before every route: state-changing requests must come from this service's own pages.
  app.use(sameOrigin({ publicUrl: config.publicUrl, exempt: (path) => path.startsWith('/storage/') }));
  app.use(health.routes());
  app.use(
    createDocsRouter(buildOpenApiDocument({ contact: config.apiContact }), {
      publicUrl: config.publicUrl,
    }).routes(),
  );
  if (isLocalStorage(services.storage)) app.use(createLocalStorageRouter(services.storage).routes());
  // The `session` cookie (koa-session), for /trpc and /api only: after the same-origin check (a
  // refused request reads no session) and after the health, docs and storage routes (no lookup).
  app.use(sessionCookies(app, database.orm, edge.settings.session.maxAgeMs));
  const trpc = createTrpcEndpoint({
    router: appRouter,
    edge,
    createContext,
  });
  app.use((ctx, next) => {
    if (ctx.path !== '/trpc' && !ctx.path.startsWith('/trpc/')) return next();
    ctx.state.route = '/trpc';
    return trpc(ctx, next);
  });
  app.use(apiRouter.routes());
  app.use(allowedMethods(apiRouter, { edge, createContext }));

  return {
    app,
    markShuttingDown() {
      shuttingDown = true;
    },
  };
}

/** Opens the database (embedded or configured), migrates, and listens. */
export async function startApp(config: AppConfig, logger: Logger): Promise<RunningApp> {
  // First: a missing production secret stops the start before anything is opened.
  const secrets = await loadSecrets(config, logger);
  const database = await openDatabase(config, logger, secrets);
  let url = '';
  const services = await createServices(config, logger, secrets, () => url);
  // The instance's LISTEN, on a connection of its own (opened with its first subscriber), and its
  // live streams with their one reader.
  const commits = new CommitListener(
    createCommitSignals(database.url, logger, config.database.timeouts.connectMs),
    logger,
  );
  const liveEvents = new LiveEventHub({
    em: () => database.orm.em.fork(),
    commits,
    settings: config.liveEvents,
    logger,
  });
  const edge = { ...createEdge(config, secrets, { em: database.orm.em, logger }), liveEvents };
  const metrics = config.metrics
    ? await startMetrics(database.orm, services, config.metrics, logger).catch(async (error) => {
        await database.close();
        throw error;
      })
    : undefined;
  const { app, markShuttingDown } = createKoaApp(database, services, config, edge, metrics?.observeRequest);
  await deleteExpiredSessions(database.orm);

  const server = createHttpServer(app.callback(), config.http);
  server.listen(config.port, config.host);
  const inFlight = trackInFlightRequests(server);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  }).catch(async (error) => {
    await metrics?.close();
    await database.close();
    throw error;
  });
  const workers = createWorkers(database.orm, services, config, { exportSeconds: metrics?.observeExport });
  for (const worker of workers) worker.start();
  // A commit that recorded events, whatever wrote them (the unit of work, plain SQL, psql), wakes
  // the workers whose work is events: the event table's trigger notifies at commit (decision 079).
  const eventWorkers = workers.filter((worker) => worker.wokenByEvents);
  if (eventWorkers.length > 0) {
    const nudge = () => {
      for (const worker of eventWorkers) worker.nudge?.();
    };
    await commits.subscribe({ onSignal: (channel) => channel === EVENT_CHANNEL && nudge(), onGap: nudge });
  }
  // Commits that created jobs or queued work wake the workers whose work that is, at once.
  database.orm.em.getEventManager().registerSubscriber(
    announceCommittedWork((work) => {
      for (const worker of workers) if (worker.wokenBy?.some((what) => work.has(what))) worker.nudge?.();
    }),
  );
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  url = `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`;

  let closing: Promise<void> | undefined;
  return {
    config,
    services,
    edge,
    database,
    server,
    url,
    ...(metrics ? { metricsUrl: metrics.url } : {}),
    close() {
      closing ??= (async () => {
        markShuttingDown();
        // Not ready but still serving, until the balancer has seen it and sends requests elsewhere.
        if (config.shutdownDrainMs > 0) await sleep(config.shutdownDrainMs);
        // Streams never finish by themselves: they end now, each answer with a `retry:` and its
        // terminator, and their clients reconnect elsewhere.
        for (const response of inFlight.responses) endEventStream(response);
        await liveEvents.close();
        await commits.close();
        // Requests in flight and claimed background jobs share the one timeout; jobs not
        // finished by then are aborted and their leases released for another instance.
        await Promise.all([
          closeServer(server, inFlight, config.shutdownTimeoutMs),
          ...workers.map((worker) => worker.stop(config.shutdownTimeoutMs)),
        ]);
        services.mailer?.close();
        await services.notifier.close();
        await services.textExtractor.close?.();
        await services.speech.close?.();
        // Last scrape possible until here: the pool it reads is closed next.
        await metrics?.close();
        await database.close();
      })();
      return closing;
    },
  };
}

/**
 * Counts requests between their arrival and the end of their response. `server.close()`
 * alone is not enough: its callback can fire while a request is still being handled, and
 * closing the pool then would cut it off.
 */
function trackInFlightRequests(server: Server) {
  const responses = new Set<ServerResponse>();
  let waiters: (() => void)[] = [];
  server.on('request', (_request, response) => {
    responses.add(response);
    response.once('close', () => {
      responses.delete(response);
      if (responses.size === 0) {
        for (const wake of waiters) wake();
        waiters = [];
      }
    });
  });
  return {
    /** The answers not yet closed (the open event streams among them). */
    responses: responses as ReadonlySet<ServerResponse>,
    drained: () =>
      responses.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve)),
  };
}

/** Stops accepting, waits for requests in flight (up to the timeout), then drops the remaining sockets. */
async function closeServer(
  server: Server,
  inFlight: ReturnType<typeof trackInFlightRequests>,
  timeoutMs: number,
) {
  server.close();
  server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    inFlight.drained(),
    new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
  ]);
  clearTimeout(timer);
  server.closeAllConnections();
}
