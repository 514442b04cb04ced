/**
 * OpenTelemetry tracing (api.md, "Running as many instances"; decision 056), loaded by
 * app/main.ts before the service, and only when OTEL_EXPORTER_OTLP_ENDPOINT is set: spans for
 * each HTTP request (server and client: webhooks, object storage and speech calls carry
 * `traceparent`), each procedure (routers/trpc.ts) and each SQL statement, sent by
 * OTLP; log lines written inside a span carry its `trace_id` and `span_id` (pino). The standard
 * `OTEL_*` variables apply (protocol, headers, sampler, service name…).
 *
 * The service is ESM (compiled in dist/ or run by Node's type stripping): import-in-the-middle's
 * loader hooks, on the main thread (`module.registerHooks`), wrap the instrumented packages as
 * they are imported, which is why this module must run before any of them is loaded. Only the
 * modules named below go through the hooks.
 */
import { trace } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { KoaInstrumentation } from '@opentelemetry/instrumentation-koa';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { register } from 'import-in-the-middle/register-hooks.mjs';

register({ include: ['http', 'https', 'node:http', 'node:https', 'koa', 'pg', 'pg-pool', 'pino', 'undici'] });

const sdk = new NodeSDK({
  // The lowest-priority attributes: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override them.
  resource: defaultResource().merge(resourceFromAttributes({ 'service.name': 'deck-service' })),
  // Metrics are Prometheus' (/metrics) and logs go to stdout: only traces leave by OTLP.
  metricReaders: [],
  logRecordProcessors: [],
  instrumentations: [
    new HttpInstrumentation({
      // Health probes every half second from each balancer would be most of the traces.
      ignoreIncomingRequestHook: (request) => request.url === '/healthz' || request.url === '/readyz',
    }),
    new KoaInstrumentation(),
    new PgInstrumentation({ requireParentSpan: true }),
    new UndiciInstrumentation(),
    new PinoInstrumentation(),
  ],
});
sdk.start();
// Imported once the hooks are in place: the procedures' module loads much of the service.
const { traceProcedures } = await import('../routers/trpc.ts');
traceProcedures(trace.getTracer('deck-service'));

/** Sends the spans still held, then stops (at shutdown). */
export async function stopTracing(): Promise<void> {
  await sdk.shutdown();
}
