/** The service itself: what it is, where it listens, its database, what it logs and measures. */
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { booleanFlag, configSection, integer } from './section.ts';

/** What the service is and where it keeps its files: its mode, its data directory, its demo data, how it stops. */
export const service = configSection({
  title: 'Service',
  variables: {
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development').meta({
      description:
        '`development`, `test` or `production`. Production requires the secrets to be set (none is generated) and seeds no demo data unless `SEED_DEMO=true`',
    }),
    DATA_DIR: z
      .string()
      .min(1)
      .default('./.data')
      .meta({ description: 'Embedded PostgreSQL cluster, local storage objects and generated secrets' }),
    // Unset: seed outside production only (toConfig).
    SEED_DEMO: booleanFlag.optional().meta({
      description: 'Create a demo organization, user and deck on an empty database',
      defaultText: '`true`; production: `false`',
    }),
    DEMO_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional().meta({
      description: 'Password of the demo user (8 characters at least; printed once)',
      defaultText: 'random',
    }),
    API_CONTACT_EMAIL: z.email().optional().meta({
      description: "Who integrators write to: the OpenAPI document's `info.contact.email`",
    }),
    API_CONTACT_URL: z.url().optional().meta({
      description: "Where integrators find help: the OpenAPI document's `info.contact.url`",
    }),
    SHUTDOWN_DRAIN_MS: integer(0, 120_000).default(0).meta({
      description:
        'Behind a load balancer: how long SIGTERM keeps serving with `/readyz` answering 503 before it stops accepting, so the balancer sends new requests elsewhere first (a little over its health-check interval × fall count)',
    }),
    SHUTDOWN_TIMEOUT_MS: integer(0)
      .default(10_000)
      .meta({ description: 'How long SIGTERM waits for requests and background jobs in flight' }),
  },
  settings: (env, { dataDir }) => ({
    env: env.NODE_ENV,
    isProduction: env.NODE_ENV === 'production',
    dataDir,
    /** The OpenAPI document's contact, beside its fixed name (rest/openapi-document.ts). */
    apiContact: {
      ...(env.API_CONTACT_EMAIL ? { email: env.API_CONTACT_EMAIL } : {}),
      ...(env.API_CONTACT_URL ? { url: env.API_CONTACT_URL } : {}),
    },
    /** A demo organization and user on an empty database: a production service gets none unless asked. */
    seedDemo: env.SEED_DEMO ?? env.NODE_ENV !== 'production',
    /** Absent: a random one, printed with the demo login. */
    demoPassword: env.DEMO_PASSWORD,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    shutdownDrainMs: env.SHUTDOWN_DRAIN_MS,
  }),
});

/** Whether a listen address is every address of the machine (`0.0.0.0`, `::`, `[::]`). */
function listensEverywhere(host: string): boolean {
  const address = host.replace(/^\[(.*)\]$/, '$1');
  // `process`: an IPv4-mapped IPv6 address (`::ffff:0.0.0.0`) is the IPv4 address it maps.
  return ipaddr.isValid(address) && ipaddr.process(address).range() === 'unspecified';
}

/** The listener: its address, what it trusts of a proxy, how long a client may take, how large a JSON body may be. */
export const http = configSection({
  title: 'HTTP',
  variables: {
    PORT: integer(0, 65535).default(3000).meta({ description: 'HTTP port (`0`: any free port)' }),
    HOST: z.string().min(1).default('0.0.0.0').meta({ description: 'Listen address' }),
    PUBLIC_URL: z.url().optional().meta({
      description:
        'Address clients reach the service at: absolute links it gives (storage, voice previews, the OpenAPI server) and the one other origin state-changing requests may come from',
    }),
    TRUST_PROXY: booleanFlag.default(false).meta({
      description:
        "Trust one proxy's `X-Forwarded-*` (client address, https → `Secure` cookie). Only for instances that nothing but the balancer can reach: with `HOST` on every address the service refuses to start unless `TRUST_PROXY_ON_EVERY_ADDRESS=true`",
    }),
    TRUST_PROXY_ON_EVERY_ADDRESS: booleanFlag.default(false).meta({
      description:
        'Allow `TRUST_PROXY` while `HOST` listens on every address (`0.0.0.0`, `::`): say so only where the network lets nothing but the balancer reach the port (a private container network)',
    }),
    HTTP_HEADERS_TIMEOUT_MS: integer(1000)
      .default(20_000)
      .meta({ description: "A client's request line and headers must arrive within this (408)" }),
    HTTP_REQUEST_TIMEOUT_MS: integer(1000)
      .default(300_000)
      .meta({ description: '…and its whole request, uploads included' }),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: integer(1000, 3_600_000).default(5000).meta({
      description:
        'How long an idle connection stays open. Behind a load balancer, longer than it keeps its idle connections to an instance (`npm run cluster`: 120000): one the instance closes as the balancer reuses it cuts that request',
    }),
    JSON_BODY_LIMIT_BYTES: integer(1024)
      .default(1024 * 1024)
      .meta({ description: 'Largest JSON body (413 past it)' }),
  },
  check: (env, ctx) => {
    // Anyone who reaches a port that believes X-Forwarded-For picks their own address, and with it
    // escapes the sign-in throttle (docs/security.md, "Trusted").
    if (env.TRUST_PROXY && !env.TRUST_PROXY_ON_EVERY_ADDRESS && listensEverywhere(env.HOST)) {
      ctx.addIssue({
        code: 'custom',
        path: ['TRUST_PROXY'],
        message: `trusts X-Forwarded-For from whoever reaches the port, and HOST=${env.HOST} lets anyone reach it: set HOST to an address only the balancer reaches (127.0.0.1 beside it), or TRUST_PROXY_ON_EVERY_ADDRESS=true where the network already ensures that`,
      });
    }
  },
  settings: (env) => ({
    port: env.PORT,
    host: env.HOST,
    /** Where clients reach this service; used for absolute links it hands out. */
    publicUrl: env.PUBLIC_URL?.replace(/\/$/, ''),
    trustProxy: env.TRUST_PROXY,
    jsonBodyLimitBytes: env.JSON_BODY_LIMIT_BYTES,
    http: {
      /** A client must have sent its request line and headers within this. */
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      /** …and its whole request (uploads included) within this. */
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      /** An idle connection is closed after this (Node's own default: 5 s). */
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    },
  }),
});

/** The PostgreSQL the service uses: a real server, or one it starts itself under `DATA_DIR`. */
export const database = configSection({
  title: 'Database',
  variables: {
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// connection URL')
      .optional()
      .meta({ description: '`postgres://…` of a real server; when set, nothing embedded is started' }),
    DATABASE_POOL_MAX: integer(1, 200).default(10).meta({ description: 'Connection pool size' }),
    EMBEDDED_POSTGRES_PORT: integer(1, 65535)
      .optional()
      .meta({ description: 'Embedded PostgreSQL port; unset: a free one, kept in `DATA_DIR`' }),
    DATABASE_CONNECT_TIMEOUT_MS: integer(100)
      .default(2000)
      .meta({ description: 'Opening a database connection' }),
    DATABASE_ACQUIRE_TIMEOUT_MS: integer(100)
      .default(2000)
      .meta({ description: 'Waiting for a pooled connection (503 with `Retry-After` past it)' }),
    DATABASE_STATEMENT_TIMEOUT_MS: integer(0)
      .default(2000)
      .meta({ description: 'One SQL statement (`statement_timeout`; `0`: none; migrations: none)' }),
  },
  settings: (env) => ({
    database: {
      /** Absent: the service starts an embedded PostgreSQL under `dataDir`. */
      url: env.DATABASE_URL,
      poolMax: env.DATABASE_POOL_MAX,
      /** Absent: a free port picked at the first start and recorded in `dataDir`. */
      embeddedPort: env.EMBEDDED_POSTGRES_PORT,
      /** A stalled database fails requests (503) instead of hanging them. */
      timeouts: {
        connectMs: env.DATABASE_CONNECT_TIMEOUT_MS,
        acquireMs: env.DATABASE_ACQUIRE_TIMEOUT_MS,
        statementMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
      },
    },
  }),
});

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
