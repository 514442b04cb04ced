import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';

/**
 * Every setting of the service, read once from the environment at start.
 * A bad value stops the process with one line per problem (see `loadConfig`).
 */
const booleanFlag = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

/** Whether a listen address is every address of the machine (`0.0.0.0`, `::`, `[::]`). */
function listensEverywhere(host: string): boolean {
  const address = host.replace(/^\[(.*)\]$/, '$1');
  // `process`: an IPv4-mapped IPv6 address (`::ffff:0.0.0.0`) is the IPv4 address it maps.
  return ipaddr.isValid(address) && ipaddr.process(address).range() === 'unspecified';
}

/** The interface's limit for contract import. */
const CONTRACT_MAX_BYTES = 10 * 1024 * 1024;

/**
 * The environment variables, each with its meaning (`description`) and, where its default is not
 * a value of the schema (it depends on NODE_ENV, or is made at start), what it is (`defaultText`):
 * `npm run docs:config` writes docs/configuration.md from them (scripts/config-table.ts).
 */
export const environmentSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development').meta({
      description:
        '`development`, `test` or `production`. Production requires the secrets to be set (none is generated) and seeds no demo data unless `SEED_DEMO=true`',
    }),
    PORT: z.coerce
      .number()
      .int()
      .min(0)
      .max(65535)
      .default(3000)
      .meta({ description: 'HTTP port (`0`: any free port)' }),
    HOST: z.string().min(1).default('0.0.0.0').meta({ description: 'Listen address' }),
    PUBLIC_URL: z.url().optional().meta({
      description:
        'Address clients reach the service at: absolute links it gives (storage, voice previews, the OpenAPI server) and the one other origin state-changing requests may come from',
    }),
    API_CONTACT_EMAIL: z.email().optional().meta({
      description: "Who integrators write to: the OpenAPI document's `info.contact.email`",
    }),
    API_CONTACT_URL: z.url().optional().meta({
      description: "Where integrators find help: the OpenAPI document's `info.contact.url`",
    }),
    DATA_DIR: z
      .string()
      .min(1)
      .default('./.data')
      .meta({ description: 'Embedded PostgreSQL cluster, local storage objects and generated secrets' }),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// connection URL')
      .optional()
      .meta({ description: '`postgres://…` of a real server; when set, nothing embedded is started' }),
    DATABASE_POOL_MAX: z.coerce
      .number()
      .int()
      .min(1)
      .max(200)
      .default(10)
      .meta({ description: 'Connection pool size' }),
    // Secrets: unset outside production, app/secrets.ts generates them into DATA_DIR.
    STORAGE_SIGNING_SECRET: z.string().min(32, 'must be at least 32 characters').optional().meta({
      description:
        'Signs local-storage `/storage` addresses (at least 32 characters; not needed with `STORAGE_DRIVER=s3`)',
      defaultText: 'dev: generated; production: required',
    }),
    ENCRYPTION_KEY: z.string().min(32, 'must be at least 32 characters').optional().meta({
      description:
        'Encrypts webhook secrets and kept idempotent answers at rest (AES-256-GCM; at least 32 characters)',
      defaultText: 'dev: generated; production: required',
    }),
    // Retired keys, comma-separated: values sealed under them still open (key rotation).
    ENCRYPTION_KEYS_PREVIOUS: z
      .string()
      .optional()
      .transform((value) =>
        (value ?? '')
          .split(',')
          .map((key) => key.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.string().min(32, 'each key must be at least 32 characters')))
      .meta({ description: 'Retired encryption keys, comma-separated: values sealed under them still open' }),
    EMBEDDED_POSTGRES_PORT: z.coerce
      .number()
      .int()
      .min(1)
      .max(65535)
      .optional()
      .meta({ description: 'Embedded PostgreSQL port; unset: a free one, kept in `DATA_DIR`' }),
    DATABASE_CONNECT_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(2000)
      .meta({ description: 'Opening a database connection' }),
    DATABASE_ACQUIRE_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(2000)
      .meta({ description: 'Waiting for a pooled connection (503 with `Retry-After` past it)' }),
    DATABASE_STATEMENT_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(2000)
      .meta({ description: 'One SQL statement (`statement_timeout`; `0`: none; migrations: none)' }),
    SESSION_MAX_AGE_HOURS: z.coerce
      .number()
      .positive()
      .max(24 * 90)
      .default(24 * 7)
      .meta({ description: 'Session lifetime, renewed (sliding) at most once an hour while used' }),
    TRUST_PROXY: booleanFlag.default(false).meta({
      description:
        "Trust one proxy's `X-Forwarded-*` (client address, https → `Secure` cookie). Only for instances that nothing but the balancer can reach: with `HOST` on every address the service refuses to start unless `TRUST_PROXY_ON_EVERY_ADDRESS=true`",
    }),
    TRUST_PROXY_ON_EVERY_ADDRESS: booleanFlag.default(false).meta({
      description:
        'Allow `TRUST_PROXY` while `HOST` listens on every address (`0.0.0.0`, `::`): say so only where the network lets nothing but the balancer reach the port (a private container network)',
    }),
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info')
      .meta({ description: '`fatal` … `trace`, `silent`' }),
    LOG_FORMAT: z.enum(['json', 'pretty']).optional().meta({
      description: '`json` or `pretty`',
      defaultText: 'pretty on a terminal outside production, else `json`',
    }),
    JSON_BODY_LIMIT_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(1024 * 1024)
      .meta({ description: 'Largest JSON body (413 past it)' }),
    // Sign-in throttling (domain/auth/login-throttle.ts): what refuses an address, what refuses
    // an address for one e-mail, and past how many failures from anywhere an e-mail slows down.
    LOGIN_MAX_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).default(30).meta({
      description:
        'Failed sign-ins from one client address, any e-mail, per window before that address gets 429',
    }),
    LOGIN_MAX_FAILURES_PER_EMAIL_AND_ADDRESS: z.coerce.number().int().min(1).default(5).meta({
      description: 'Failed sign-ins for one e-mail from one address per window before 429 for that pair',
    }),
    LOGIN_BACKOFF_AFTER_FAILURES_PER_EMAIL: z.coerce.number().int().min(1).default(10).meta({
      description:
        "An e-mail's failures (any address) per window past which an address that failed for it waits between tries (1 s, doubling); never refuses an address without failures",
    }),
    LOGIN_THROTTLE_WINDOW_SECONDS: z.coerce
      .number()
      .int()
      .min(1)
      .default(15 * 60)
      .meta({ description: 'Sign-in throttle window' }),
    LOGIN_THROTTLE_SWEEP_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(10)
      .default(600_000)
      .meta({ description: 'How often each instance removes throttle counts whose window has ended' }),
    // Its meaning changed (it locked the e-mail for everyone): a deployment that set it must
    // choose again rather than keep a setting that silently no longer applies.
    LOGIN_MAX_FAILURES_PER_EMAIL: z
      .undefined({
        error:
          'is gone: failures now refuse only the address they came from (LOGIN_MAX_FAILURES_PER_EMAIL_AND_ADDRESS) and slow the e-mail elsewhere (LOGIN_BACKOFF_AFTER_FAILURES_PER_EMAIL)',
      })
      .optional()
      .meta({ description: 'Gone: setting it stops the start (use the two settings above)' }),
    RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600).meta({
      description: 'Requests (and `/trpc` calls) per caller per minute, all instances together (429)',
    }),
    HEAVY_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(30).meta({
      description:
        'Heavy requests (contract import, FAQ create and edit, generation start, export start, image upload, adding a user) per organization per minute, all instances together (429)',
    }),
    RATE_LIMIT_STORE: z.enum(['postgres', 'memory']).default('postgres').meta({
      description:
        '`postgres`: the counts live in the database every instance shares (each instance counts alone, and logs a warning, while it cannot reach it); `memory`: each instance counts alone (one instance only)',
    }),
    IDEMPOTENCY_TAKEOVER_SECONDS: z.coerce.number().int().min(1).default(600).meta({
      description: 'A request with an `Idempotency-Key` still running after this is taken over by a retry',
    }),
    IDEMPOTENCY_SWEEP_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(10)
      .default(600_000)
      .meta({ description: 'How often each instance removes idempotency keys past their 24 hours' }),
    // Unset: seed outside production only (toConfig).
    SEED_DEMO: booleanFlag.optional().meta({
      description: 'Create a demo organization, user and deck on an empty database',
      defaultText: '`true`; production: `false`',
    }),
    DEMO_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional().meta({
      description: 'Password of the demo user (8 characters at least; printed once)',
      defaultText: 'random',
    }),
    NOTIFICATIONS_ENABLED: booleanFlag
      .default(true)
      .meta({ description: 'Whether this instance dispatches events and sends notifications' }),
    NOTIFICATIONS_POLL_INTERVAL_MS: z.coerce.number().int().min(10).default(1000).meta({
      description:
        'How often the notification worker looks for work it was not nudged about (events and retries of other instances, retries coming due)',
    }),
    NOTIFICATIONS_CONCURRENCY: z.coerce
      .number()
      .int()
      .min(1)
      .max(100)
      .default(32)
      .meta({ description: 'Notifications one instance sends at once (each waits on a receiver)' }),
    NOTIFICATIONS_LEASE_SECONDS: z.coerce.number().int().min(1).max(3600).default(15).meta({
      description:
        "A claimed delivery's lease, renewed while held: how long a dead instance's deliveries wait",
    }),
    WEBHOOK_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(10_000)
      .meta({ description: 'One webhook attempt (no redirects followed)' }),
    WEBHOOK_RETRY_SCHEDULE_SECONDS: z
      .string()
      .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'must be a comma-separated list of seconds')
      .default('5,300,1800,7200,18000,36000,86400')
      .meta({
        description: 'Delays before each retry, comma-separated (±10 % jitter); then the delivery fails',
      }),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: booleanFlag
      .default(false)
      .meta({ description: 'Allow webhooks to private, loopback and link-local addresses' }),
    WEBHOOK_DISABLE_AFTER_HOURS: z.coerce
      .number()
      .positive()
      .max(8760)
      .default(120)
      .meta({ description: 'A webhook whose deliveries all failed this long is switched off' }),
    WEBHOOK_REPLAY_MAX_DAYS: z.coerce
      .number()
      .int()
      .min(1)
      .max(3650)
      .default(30)
      .meta({ description: 'How far back a replay may reach (400 past it)' }),
    WEBHOOK_REPLAY_MAX_EVENTS: z.coerce.number().int().min(1).max(1_000_000).default(10_000).meta({
      description:
        'Most events one replay may queue (400 past it), and most deliveries a subscription may have pending for a replay to start (409)',
    }),
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
      .optional()
      .meta({
        description:
          '`smtp://` or `smtps://` URL of the mail server for e-mail subscriptions; unset: e-mail subscriptions are refused (400)',
      }),
    MAIL_FROM: z
      .string()
      .min(3)
      .default('Deck service <no-reply@localhost>')
      .meta({ description: 'Sender of notification e-mails' }),
    STORAGE_DRIVER: z
      .enum(['local', 's3'])
      .default('local')
      .meta({ description: '`local` (files under `DATA_DIR`, signed `/storage` addresses) or `s3`' }),
    S3_ENDPOINT: z
      .url()
      .optional()
      .meta({ description: 'Endpoint of an S3-compatible store; unset: AWS S3' }),
    S3_REGION: z.string().min(1).default('us-east-1').meta({ description: 'Region requests are signed for' }),
    S3_BUCKET: z
      .string()
      .min(3)
      .optional()
      .meta({ description: 'Bucket that holds every object (required with `STORAGE_DRIVER=s3`)' }),
    S3_ACCESS_KEY_ID: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'Access key id (required with `STORAGE_DRIVER=s3`)' }),
    S3_SECRET_ACCESS_KEY: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'Secret access key (required with `STORAGE_DRIVER=s3`)' }),
    S3_FORCE_PATH_STYLE: booleanFlag.default(false).meta({
      description:
        'Name the bucket in the path (`endpoint/bucket/key`) rather than the host name, as many S3-compatible stores need',
    }),
    IMAGE_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(10 * 1024 * 1024)
      .meta({ description: 'Largest image upload (413 past it)' }),
    KB_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1)
      .default(50 * 1024 * 1024)
      .meta({ description: 'Largest knowledge-base document a client may declare (400 past it)' }),
    KB_PENDING_TTL_HOURS: z.coerce
      .number()
      .positive()
      .default(24)
      .meta({ description: 'Knowledge-base uploads never completed are removed after this' }),
    KB_SWEEP_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(10)
      .default(600_000)
      .meta({ description: 'How often each instance looks for them' }),
    KB_ALLOWED_TYPES: z
      .string()
      .default(
        [
          'application/pdf',
          'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
          'application/vnd.openxmlformats-officedocument.presentationml.presentation',
          'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
          'application/msword',
          'application/vnd.ms-powerpoint',
          'text/plain',
          'text/markdown',
          'text/html',
          'text/csv',
          'application/json',
          'application/rtf',
        ].join(','),
      )
      .meta({
        description: 'Media types a knowledge-base document may declare, comma-separated (400 otherwise)',
      }),
    UPLOAD_MEMORY_BUDGET_BYTES: z.coerce
      .number()
      .int()
      .min(1024 * 1024)
      .default(100 * 1024 * 1024)
      .meta({
        description:
          'Request-body bytes all uploads and signed-in JSON bodies in flight may hold; past it 503 with `Retry-After`',
      }),
    UPLOAD_MEMORY_PER_ORGANIZATION_BYTES: z.coerce
      .number()
      .int()
      .min(1024 * 1024)
      .default(25 * 1024 * 1024)
      .meta({ description: "…of which one organization's may hold; past it 429 with `Retry-After`" }),
    UPLOAD_MEMORY_PER_CALLER_BYTES: z.coerce
      .number()
      .int()
      .min(1024 * 1024)
      .default(16 * 1024 * 1024)
      .meta({ description: "…and one caller's (user or API key); past it 429 with `Retry-After`" }),
    UPLOAD_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000).meta({
      description:
        'A request body (upload or JSON, `/api` and `/trpc`) from which no byte arrives for this long is cut off (408)',
    }),
    DOCUMENT_CONCURRENCY: z.coerce
      .number()
      .int()
      .min(1)
      .max(16)
      .default(2)
      .meta({ description: 'Contracts read at once (worker threads)' }),
    DOCUMENT_QUEUE_MAX: z.coerce.number().int().min(0).max(1000).default(8).meta({
      description:
        "Contracts waiting to be read while every reader is busy; past it 503 with `Retry-After`. One organization's contracts hold at most half the readers and half the places (rounded up); past that share 429 with `Retry-After`",
    }),
    DOCUMENT_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(60_000)
      .meta({ description: 'Longest reading of one contract (422 past it)' }),
    DOCUMENT_WORKER_MEMORY_MB: z.coerce.number().int().min(64).max(8192).default(512).meta({
      description:
        'Memory of one reading worker: its heap and the buffers it allocates (413 when a document outgrows it)',
    }),
    CONTRACT_MAX_TEXT_CHARS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(2_000_000)
      .meta({ description: 'Most text a contract may yield (413 past it)' }),
    CONTRACT_AI_URL: z.url().optional().meta({
      description:
        "Base URL of an OpenAI-compatible API (`…/chat/completions`) asked for a contract's variables; unset: offline detection only",
    }),
    CONTRACT_AI_KEY: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'Its bearer token, when it needs one' }),
    CONTRACT_AI_MODEL: z.string().min(1).default('gpt-4o-mini').meta({ description: 'The model asked' }),
    CONTRACT_AI_TIMEOUT_MS: z.coerce.number().int().min(100).default(20_000).meta({
      description: 'Longest wait for its answer; past it (or on any error) offline detection answers',
    }),
    ELEVENLABS_API_KEY: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'Speak with ElevenLabs; unset: espeak-ng, built in' }),
    ELEVENLABS_BASE_URL: z
      .url()
      .default('https://api.elevenlabs.io')
      .meta({ description: 'ElevenLabs API address' }),
    ELEVENLABS_MODEL_ID: z
      .string()
      .min(1)
      .default('eleven_multilingual_v2')
      .meta({ description: 'ElevenLabs model that speaks' }),
    ELEVENLABS_DEFAULT_VOICE_ID: z
      .string()
      .min(1)
      .default('21m00Tcm4TlvDq8ikWAM')
      .meta({ description: 'ElevenLabs voice of decks and intros that name none' }),
    SPEECH_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000).meta({
      description:
        'Longest synthesis of one text: past it a FAQ is saved without audio and a narration job fails',
    }),
    SPEECH_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2).meta({
      description:
        'Syntheses at once: espeak-ng worker threads, or requests to ElevenLabs (at most its plan allows at once). Shared among organizations in turn; one organization holds at most all but one (with 1, that one: the others wait their turn)',
    }),
    SPEECH_MAX_AUDIO_BYTES: z.coerce
      .number()
      .int()
      .min(16_384)
      .default(6 * 1024 * 1024)
      .meta({
        description:
          'Largest MP3 one FAQ answer, slide script or intro may make (6 MiB: 13 minutes of espeak-ng, 6.5 of ElevenLabs); a longer text is not spoken: the FAQ is saved without audio, with a warning, and a narration job fails',
      }),
    VOICES_CACHE_SECONDS: z.coerce.number().int().min(0).default(3600).meta({
      description:
        'How long the voice list is kept before the engine is asked again (when it fails, the last list is served)',
    }),
    GENERATION_ENABLED: booleanFlag
      .default(true)
      .meta({ description: 'Whether this instance runs the narration worker' }),
    GENERATION_POLL_INTERVAL_MS: z.coerce.number().int().min(10).default(1000).meta({
      description:
        "How often the narration worker looks for jobs it was not nudged about (another instance's, or left by a dead one)",
    }),
    GENERATION_CONCURRENCY: z.coerce
      .number()
      .int()
      .min(1)
      .max(16)
      .default(2)
      .meta({ description: 'Narration jobs one instance runs at once' }),
    GENERATION_LEASE_SECONDS: z.coerce.number().int().min(1).max(3600).default(120).meta({
      description:
        'How long a narration job stays claimed without news from its instance (renewed after every slide): after it, a dead instance’s job goes on elsewhere',
    }),
    EXPORTS_ENABLED: booleanFlag
      .default(true)
      .meta({ description: 'Whether this instance runs the deck export worker' }),
    EXPORT_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2).meta({
      description: 'Deck exports one instance renders at once, each in a child process of its own',
    }),
    EXPORTS_PER_ORGANIZATION: z.coerce.number().int().min(1).max(100).default(2).meta({
      description:
        "Deck exports of one organization rendered at once on all instances together; its others wait (pending) while another organization's go ahead",
    }),
    EXPORT_POLL_INTERVAL_MS: z.coerce.number().int().min(10).default(1000).meta({
      description:
        'How often the export worker looks for exports it was not nudged about, and renews the leases of those it renders (a cancel is seen within it)',
    }),
    EXPORT_LEASE_SECONDS: z.coerce.number().int().min(1).max(3600).default(60).meta({
      description:
        'How long an export stays claimed without news from its instance: after it, a dead instance’s export starts again elsewhere',
    }),
    EXPORT_TIMEOUT_MS: z.coerce.number().int().min(1000).default(600_000).meta({
      description: 'Longest rendering of one export; past it the export fails',
    }),
    EXPORT_WORKER_MEMORY_MB: z.coerce.number().int().min(256).max(8192).default(512).meta({
      description:
        'Memory of one export’s render process and its ffmpeg together (resident, read from /proc; the heap alone where there is none): past it the export fails. A 5-minute video holds ~270 MB (docs/performance.md, bench:export)',
    }),
    EXPORT_RETENTION_DAYS: z.coerce.number().int().min(1).max(365).default(7).meta({
      description:
        'How long a finished export’s file is kept; then it is deleted and the export answers `file: null`',
    }),
    EXPORT_SWEEP_INTERVAL_MS: z.coerce.number().int().min(10).default(600_000).meta({
      description: 'How often each instance deletes the files of expired exports (and of deleted decks)',
    }),
    UPLOAD_URL_EXPIRES_SECONDS: z.coerce
      .number()
      .int()
      .min(10)
      .max(7 * 24 * 3600)
      .default(900)
      .meta({ description: 'How long a signed upload address stays valid' }),
    DOWNLOAD_URL_EXPIRES_SECONDS: z.coerce
      .number()
      .int()
      .min(10)
      .max(7 * 24 * 3600)
      .default(3600)
      .meta({ description: 'How long a signed download address stays valid (list again for fresh ones)' }),
    HTTP_HEADERS_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(20_000)
      .meta({ description: "A client's request line and headers must arrive within this (408)" }),
    HTTP_REQUEST_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(300_000)
      .meta({ description: '…and its whole request, uploads included' }),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(5000).meta({
      description:
        'How long an idle connection stays open. Behind a load balancer, longer than it keeps its idle connections to an instance (`npm run cluster`: 120000): one the instance closes as the balancer reuses it cuts that request',
    }),
    METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional().meta({
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
    SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(120_000).default(0).meta({
      description:
        'Behind a load balancer: how long SIGTERM keeps serving with `/readyz` answering 503 before it stops accepting, so the balancer sends new requests elsewhere first (a little over its health-check interval × fall count)',
    }),
    SHUTDOWN_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(10_000)
      .meta({ description: 'How long SIGTERM waits for requests and background jobs in flight' }),
    STREAMS_PER_CALLER: z.coerce.number().int().min(1).max(1000).default(5).meta({
      description:
        'Live streams (SSE and tRPC subscriptions, `generation.onProgress` included) one user or API key may hold open, counted across every instance (429 past it)',
    }),
    STREAMS_PER_ORGANIZATION: z.coerce.number().int().min(1).max(10_000).default(100).meta({
      description:
        'Live streams all the users and API keys of one organization may hold open, counted across every instance (429 past it); below STREAMS_PER_INSTANCE, so that one organization never fills an instance',
    }),
    STREAMS_PER_INSTANCE: z.coerce.number().int().min(2).max(10_000).default(192).meta({
      description:
        "Live streams one instance holds, whoever's (503 past it): keep it well below the connections the load balancer opens to one instance (`maxconn 256` in deploy/haproxy.cfg), so ordinary requests always find room",
    }),
    STREAM_LEASE_SECONDS: z.coerce.number().int().min(1).max(300).default(15).meta({
      description:
        "How long an instance's open streams count after it last renewed them (it does every third of this): the streams of an instance killed without a stop stop counting against their organization's cap by then",
    }),
    STREAM_BUFFER_BYTES: z.coerce
      .number()
      .int()
      .min(16 * 1024)
      .default(256 * 1024)
      .meta({
        description:
          'Events a live stream may hold for a client that does not read them; past it the client is disconnected (it resumes with `Last-Event-ID`)',
      }),
    STREAM_AUTH_CHECK_SECONDS: z.coerce.number().positive().max(50).default(30).meta({
      description:
        "How often each instance checks its open streams' sessions and API keys: a revoked one's streams end by then (at most 50, so that they end within a minute)",
    }),
    STREAM_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(1000).meta({
      description:
        'While streams are open, how often the instance reads the event log even without a notification (a lost one)',
    }),
  })
  .superRefine((env, ctx) => {
    // Anyone who reaches a port that believes X-Forwarded-For picks their own address, and with it
    // escapes the sign-in throttle (docs/security.md, "Trusted").
    if (env.TRUST_PROXY && !env.TRUST_PROXY_ON_EVERY_ADDRESS && listensEverywhere(env.HOST)) {
      ctx.addIssue({
        code: 'custom',
        path: ['TRUST_PROXY'],
        message: `trusts X-Forwarded-For from whoever reaches the port, and HOST=${env.HOST} lets anyone reach it: set HOST to an address only the balancer reaches (127.0.0.1 beside it), or TRUST_PROXY_ON_EVERY_ADDRESS=true where the network already ensures that`,
      });
    }
    if (env.STORAGE_DRIVER === 's3') {
      for (const name of ['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const) {
        if (!env[name])
          ctx.addIssue({ code: 'custom', path: [name], message: 'is required when STORAGE_DRIVER=s3' });
      }
    }
    // Each organization a share of an instance's streams, each caller a share of its organization's.
    if (env.STREAMS_PER_ORGANIZATION >= env.STREAMS_PER_INSTANCE) {
      ctx.addIssue({
        code: 'custom',
        path: ['STREAMS_PER_ORGANIZATION'],
        message: `must be below STREAMS_PER_INSTANCE (${env.STREAMS_PER_INSTANCE}): one organization must not fill an instance`,
      });
    }
    if (env.STREAMS_PER_CALLER > env.STREAMS_PER_ORGANIZATION) {
      ctx.addIssue({
        code: 'custom',
        path: ['STREAMS_PER_CALLER'],
        message: `must be at most STREAMS_PER_ORGANIZATION (${env.STREAMS_PER_ORGANIZATION})`,
      });
    }
    const largestUpload = Math.max(env.IMAGE_MAX_BYTES, CONTRACT_MAX_BYTES);
    for (const name of [
      'UPLOAD_MEMORY_BUDGET_BYTES',
      'UPLOAD_MEMORY_PER_ORGANIZATION_BYTES',
      'UPLOAD_MEMORY_PER_CALLER_BYTES',
    ] as const) {
      if (env[name] < largestUpload) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `must hold at least one upload of the largest size (${largestUpload} bytes)`,
        });
      }
    }
  });

export type AppConfig = ReturnType<typeof toConfig>;

function toConfig(env: z.output<typeof environmentSchema>) {
  const dataDir = path.resolve(env.DATA_DIR);
  return {
    env: env.NODE_ENV,
    isProduction: env.NODE_ENV === 'production',
    port: env.PORT,
    host: env.HOST,
    /** Where clients reach this service; used for absolute links it hands out. */
    publicUrl: env.PUBLIC_URL?.replace(/\/$/, ''),
    /** The OpenAPI document's contact, beside its fixed name (rest/openapi-document.ts). */
    apiContact: {
      ...(env.API_CONTACT_EMAIL ? { email: env.API_CONTACT_EMAIL } : {}),
      ...(env.API_CONTACT_URL ? { url: env.API_CONTACT_URL } : {}),
    },
    dataDir,
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
    /** As given in the environment; `loadSecrets` (app/secrets.ts) resolves the missing ones. */
    secrets: {
      storageSigning: env.STORAGE_SIGNING_SECRET,
      encryption: env.ENCRYPTION_KEY,
    },
    /** Keys that sealed stored secrets before `ENCRYPTION_KEY` (adapters/secret-box.ts); they only open. */
    previousEncryptionKeys: env.ENCRYPTION_KEYS_PREVIOUS,
    session: {
      maxAgeMs: env.SESSION_MAX_AGE_HOURS * 3600 * 1000,
    },
    trustProxy: env.TRUST_PROXY,
    logLevel: env.LOG_LEVEL,
    /** Absent: pretty on a terminal outside production, JSON otherwise (adapters/logger/logger.ts). */
    logFormat: env.LOG_FORMAT,
    jsonBodyLimitBytes: env.JSON_BODY_LIMIT_BYTES,
    loginThrottle: {
      maxFailuresPerAddress: env.LOGIN_MAX_FAILURES_PER_ADDRESS,
      maxFailuresPerEmailAndAddress: env.LOGIN_MAX_FAILURES_PER_EMAIL_AND_ADDRESS,
      backoffAfterFailuresPerEmail: env.LOGIN_BACKOFF_AFTER_FAILURES_PER_EMAIL,
      windowSeconds: env.LOGIN_THROTTLE_WINDOW_SECONDS,
      /** How often each instance removes counts whose window has ended (app/workers/login-throttle-sweep.ts). */
      sweepIntervalMs: env.LOGIN_THROTTLE_SWEEP_INTERVAL_MS,
    },
    rateLimits: {
      /** Requests (and /trpc calls) per caller per minute, counted across instances. */
      perCallerPerMinute: env.RATE_LIMIT_PER_MINUTE,
      /** Heavy requests (procedures whose meta says `heavy`) per organization per minute. */
      heavyPerOrganizationPerMinute: env.HEAVY_LIMIT_PER_MINUTE,
      /** Where the counts live: the shared database, or this instance's memory. */
      store: env.RATE_LIMIT_STORE,
    },
    idempotency: {
      /** How long the first completed answer to a key is kept (api.md: 24 hours). */
      ttlSeconds: 24 * 3600,
      /** A claim still running after this belongs to a request that died: another may take it over. */
      abandonAfterSeconds: env.IDEMPOTENCY_TAKEOVER_SECONDS,
      sweepIntervalMs: env.IDEMPOTENCY_SWEEP_INTERVAL_MS,
    },
    /** A demo organization and user on an empty database: a production service gets none unless asked. */
    seedDemo: env.SEED_DEMO ?? env.NODE_ENV !== 'production',
    /** Absent: a random one, printed with the demo login. */
    demoPassword: env.DEMO_PASSWORD,
    notifications: {
      /** Whether this instance runs the dispatcher and delivery worker. */
      enabled: env.NOTIFICATIONS_ENABLED,
      pollIntervalMs: env.NOTIFICATIONS_POLL_INTERVAL_MS,
      concurrency: env.NOTIFICATIONS_CONCURRENCY,
      /** How long a claim holds a delivery without being renewed: what a dead instance's claims wait. */
      leaseSeconds: env.NOTIFICATIONS_LEASE_SECONDS,
      webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
      /** Delay before each retry; one more attempt than entries, then the delivery fails. */
      retryScheduleSeconds: env.WEBHOOK_RETRY_SCHEDULE_SECONDS.split(',').map(Number),
      allowPrivateNetworks: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      /** A webhook subscription whose deliveries have all failed this long is switched off. */
      disableAfterHours: env.WEBHOOK_DISABLE_AFTER_HOURS,
      /** How far back a replay may reach, and how many events one replay may queue. */
      replay: { maxDays: env.WEBHOOK_REPLAY_MAX_DAYS, maxEvents: env.WEBHOOK_REPLAY_MAX_EVENTS },
    },
    mail: { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM },
    storage: {
      driver: env.STORAGE_DRIVER,
      s3: {
        endpoint: env.S3_ENDPOINT,
        region: env.S3_REGION,
        bucket: env.S3_BUCKET ?? '',
        accessKeyId: env.S3_ACCESS_KEY_ID ?? '',
        secretAccessKey: env.S3_SECRET_ACCESS_KEY ?? '',
        forcePathStyle: env.S3_FORCE_PATH_STYLE,
      },
      uploadUrlExpiresSeconds: env.UPLOAD_URL_EXPIRES_SECONDS,
      downloadUrlExpiresSeconds: env.DOWNLOAD_URL_EXPIRES_SECONDS,
    },
    speech: {
      elevenLabs: env.ELEVENLABS_API_KEY
        ? {
            apiKey: env.ELEVENLABS_API_KEY,
            baseUrl: env.ELEVENLABS_BASE_URL.replace(/\/$/, ''),
            modelId: env.ELEVENLABS_MODEL_ID,
            defaultVoiceId: env.ELEVENLABS_DEFAULT_VOICE_ID,
          }
        : null,
      timeoutMs: env.SPEECH_TIMEOUT_MS,
      concurrency: env.SPEECH_CONCURRENCY,
      maxAudioBytes: env.SPEECH_MAX_AUDIO_BYTES,
      voicesCacheMs: env.VOICES_CACHE_SECONDS * 1000,
    },
    /** The live event streams of this instance (domain/events/live-events.ts). */
    liveEvents: {
      streamsPerCaller: env.STREAMS_PER_CALLER,
      streamsPerOrganization: env.STREAMS_PER_ORGANIZATION,
      streamsPerInstance: env.STREAMS_PER_INSTANCE,
      leaseMs: env.STREAM_LEASE_SECONDS * 1000,
      bufferBytes: env.STREAM_BUFFER_BYTES,
      authCheckMs: env.STREAM_AUTH_CHECK_SECONDS * 1000,
      pollIntervalMs: env.STREAM_POLL_INTERVAL_MS,
    },
    generation: {
      /** Whether this instance runs the narration generation worker. */
      enabled: env.GENERATION_ENABLED,
      pollIntervalMs: env.GENERATION_POLL_INTERVAL_MS,
      concurrency: env.GENERATION_CONCURRENCY,
      leaseSeconds: env.GENERATION_LEASE_SECONDS,
    },
    exports: {
      /** Whether this instance runs the export worker (app/workers/export-runner.ts). */
      enabled: env.EXPORTS_ENABLED,
      concurrency: env.EXPORT_CONCURRENCY,
      perOrganization: env.EXPORTS_PER_ORGANIZATION,
      pollIntervalMs: env.EXPORT_POLL_INTERVAL_MS,
      leaseSeconds: env.EXPORT_LEASE_SECONDS,
      timeoutMs: env.EXPORT_TIMEOUT_MS,
      workerMemoryMb: env.EXPORT_WORKER_MEMORY_MB,
      retentionDays: env.EXPORT_RETENTION_DAYS,
      sweepIntervalMs: env.EXPORT_SWEEP_INTERVAL_MS,
      /** Each export renders in a directory of its own under this one, removed when it ends. */
      workDir: path.join(dataDir, 'export-work'),
    },
    contractAi: env.CONTRACT_AI_URL
      ? {
          url: env.CONTRACT_AI_URL.replace(/\/$/, ''),
          key: env.CONTRACT_AI_KEY,
          model: env.CONTRACT_AI_MODEL,
          timeoutMs: env.CONTRACT_AI_TIMEOUT_MS,
        }
      : null,
    uploads: {
      imageMaxBytes: env.IMAGE_MAX_BYTES,
      kbMaxBytes: env.KB_MAX_BYTES,
      kbAllowedTypes: env.KB_ALLOWED_TYPES.split(',')
        .map((t) => t.trim().toLowerCase())
        .filter(Boolean),
      /** Pending knowledge-base documents older than this are removed (app/workers/kb-sweep.ts). */
      kbPendingTtlHours: env.KB_PENDING_TTL_HOURS,
      kbSweepIntervalMs: env.KB_SWEEP_INTERVAL_MS,
      contractMaxBytes: CONTRACT_MAX_BYTES,
      /** Multipart bytes held in memory by all uploads in flight; past it, 503. */
      memoryBudgetBytes: env.UPLOAD_MEMORY_BUDGET_BYTES,
      /** …by one organization's uploads, and by one caller's; past either, 429. */
      memoryPerOrganizationBytes: env.UPLOAD_MEMORY_PER_ORGANIZATION_BYTES,
      memoryPerCallerBytes: env.UPLOAD_MEMORY_PER_CALLER_BYTES,
      /** An upload from which no byte has arrived for this long is cut off (408). */
      idleTimeoutMs: env.UPLOAD_IDLE_TIMEOUT_MS,
    },
    documents: {
      concurrency: env.DOCUMENT_CONCURRENCY,
      maxQueued: env.DOCUMENT_QUEUE_MAX,
      timeoutMs: env.DOCUMENT_TIMEOUT_MS,
      workerMemoryMb: env.DOCUMENT_WORKER_MEMORY_MB,
      maxTextChars: env.CONTRACT_MAX_TEXT_CHARS,
      /**
       * What a DOCX may inflate to, and a PDF's streams decode to together: a zip bomb stops here,
       * not at the worker's memory (decision 060).
       */
      maxExpandedBytes: 128 * 1024 * 1024,
      /** …one PDF stream at most (a page's content is a few hundred kilobytes, a font a few megabytes). */
      maxStreamBytes: 32 * 1024 * 1024,
      /** Operators and operands of a PDF: pdf.js reads about 400,000 a second. */
      maxTokens: 2_000_000,
      /** Pages of a PDF (2,000 took 6 s to read, 20,000 over a minute). */
      maxPages: 1_000,
      /** XML elements of a DOCX: officeparser reads about 25,000 a second. */
      maxXmlElements: 150_000,
    },
    http: {
      /** A client must have sent its request line and headers within this. */
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      /** …and its whole request (uploads included) within this. */
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      /** An idle connection is closed after this (Node's own default: 5 s). */
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    },
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    shutdownDrainMs: env.SHUTDOWN_DRAIN_MS,
    /** `/metrics` on its own listener (app/metrics.ts); absent: none. */
    metrics: env.METRICS_PORT === undefined ? undefined : { port: env.METRICS_PORT, host: env.METRICS_HOST },
  };
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Parses the environment; empty strings count as unset so `FOO=` in a .env file means "default". */
/**
 * Whether tracing is asked for (OTEL_EXPORTER_OTLP_ENDPOINT), read before anything else is loaded
 * (app/main.ts): the tracing SDK must hook the modules it instruments before they are imported.
 */
export function tracingRequested(source: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(source.OTEL_EXPORTER_OTLP_ENDPOINT);
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): AppConfig {
  const env = Object.fromEntries(
    Object.entries(source).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    // Name the variable and the rule, never echo the value: it may be a secret.
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  return toConfig(parsed.data);
}
