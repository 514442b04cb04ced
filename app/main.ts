// First, so that V8 runs with these settings before any other module is evaluated.
import './v8-tuning.ts';
import { tracingRequested } from './config.ts';

/**
 * `npm start`. With OTEL_EXPORTER_OTLP_ENDPOINT set, tracing starts before anything else is
 * loaded: its loader hooks must be in place when the modules it instruments (http, Koa, pg,
 * pino, undici) are imported, so the service itself is imported after it, dynamically. Unset,
 * nothing of OpenTelemetry's SDK is loaded at all.
 */
const tracing = tracingRequested() ? await import('./tracing.ts') : undefined;
const { serve } = await import('./serve.ts');
await serve(async () => {
  await tracing?.stopTracing();
});
