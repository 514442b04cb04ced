import { z } from 'zod';
import { configSection, integer } from './section.ts';

/** What the service logs, and where it offers metrics and sends traces. */
export const observability = configSection({
  title: 'Logs, metrics and tracing',
  variables: {
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info')
      .meta({ description: '`fatal` … `trace`, `silent`' }),
    LOG_FORMAT: z.enum(['json', 'pretty']).optional().meta({
      description: '`json` or `pretty`',
      defaultText: 'pretty on a terminal outside production, else `json`',
    }),
    METRICS_PORT: integer(0, 65535).optional().meta({
      description:
        'Port of a second listener answering `GET /metrics` (Prometheus text format); unset: no listener, nothing measured',
    }),
    METRICS_HOST: z
      .string()
      .min(1)
      .default('127.0.0.1')
      .meta({ description: 'Address the metrics listener binds to (keep it off the public network)' }),
    OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional().meta({
      description:
        'OpenTelemetry traces, sent by OTLP over HTTP to this collector (e.g. `http://127.0.0.1:4318`); unset: no tracing. The other standard `OTEL_*` variables apply (protocol, headers, sampler, `OTEL_SERVICE_NAME`: default `deck-service`)',
    }),
  },
  settings: (env) => ({
    logLevel: env.LOG_LEVEL,
    /** Absent: pretty on a terminal outside production, JSON otherwise (adapters/logger/logger.ts). */
    logFormat: env.LOG_FORMAT,
    /** `/metrics` on its own listener (app/metrics.ts); absent: none. */
    metrics: env.METRICS_PORT === undefined ? undefined : { port: env.METRICS_PORT, host: env.METRICS_HOST },
  }),
});
