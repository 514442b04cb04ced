/** What callers may do and hold: sign-in and secrets, request limits, uploads, the files they store, live streams. */
import { z } from 'zod';
import { booleanFlag, configSection, integer } from './section.ts';

/** The keys the service signs and encrypts with, its sessions, and the throttle on failed sign-ins. */
export const signIn = configSection({
  title: 'Secrets and sign-in',
  variables: {
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
    SESSION_MAX_AGE_HOURS: z.coerce
      .number()
      .positive()
      .max(24 * 90)
      .default(24 * 7)
      .meta({ description: 'Session lifetime, renewed (sliding) at most once an hour while used' }),
    // Sign-in throttling (domain/auth/login-throttle.ts): what refuses an address, what refuses
    // an address for one e-mail, and past how many failures from anywhere an e-mail slows down.
    LOGIN_MAX_FAILURES_PER_ADDRESS: integer(1).default(30).meta({
      description:
        'Failed sign-ins from one client address, any e-mail, per window before that address gets 429',
    }),
    LOGIN_MAX_FAILURES_PER_EMAIL_AND_ADDRESS: integer(1).default(5).meta({
      description: 'Failed sign-ins for one e-mail from one address per window before 429 for that pair',
    }),
    LOGIN_BACKOFF_AFTER_FAILURES_PER_EMAIL: integer(1).default(10).meta({
      description:
        "An e-mail's failures (any address) per window past which an address that failed for it waits between tries (1 s, doubling); never refuses an address without failures",
    }),
    LOGIN_THROTTLE_WINDOW_SECONDS: integer(1)
      .default(15 * 60)
      .meta({ description: 'Sign-in throttle window' }),
    LOGIN_THROTTLE_SWEEP_INTERVAL_MS: integer(10)
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
  },
  settings: (env) => ({
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
    loginThrottle: {
      maxFailuresPerAddress: env.LOGIN_MAX_FAILURES_PER_ADDRESS,
      maxFailuresPerEmailAndAddress: env.LOGIN_MAX_FAILURES_PER_EMAIL_AND_ADDRESS,
      backoffAfterFailuresPerEmail: env.LOGIN_BACKOFF_AFTER_FAILURES_PER_EMAIL,
      windowSeconds: env.LOGIN_THROTTLE_WINDOW_SECONDS,
      /** How often each instance removes counts whose window has ended (app/workers/login-throttle-sweep.ts). */
      sweepIntervalMs: env.LOGIN_THROTTLE_SWEEP_INTERVAL_MS,
    },
  }),
});

/** What one caller and one organization may ask per minute, and how long an idempotency key holds. */
export const limits = configSection({
  title: 'Request limits and idempotency',
  variables: {
    RATE_LIMIT_PER_MINUTE: integer(1).default(600).meta({
      description: 'Requests (and `/trpc` calls) per caller per minute, all instances together (429)',
    }),
    HEAVY_LIMIT_PER_MINUTE: integer(1).default(30).meta({
      description:
        'Heavy requests (contract import, FAQ create and edit, generation start, export start, image upload, adding a user) per organization per minute, all instances together (429)',
    }),
    RATE_LIMIT_STORE: z.enum(['postgres', 'memory']).default('postgres').meta({
      description:
        '`postgres`: the counts live in the database every instance shares (each instance counts alone, and logs a warning, while it cannot reach it); `memory`: each instance counts alone (one instance only)',
    }),
    IDEMPOTENCY_TAKEOVER_SECONDS: integer(1).default(600).meta({
      description: 'A request with an `Idempotency-Key` still running after this is taken over by a retry',
    }),
    IDEMPOTENCY_SWEEP_INTERVAL_MS: integer(10)
      .default(600_000)
      .meta({ description: 'How often each instance removes idempotency keys past their 24 hours' }),
  },
  settings: (env) => ({
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
  }),
});

/** The interface's limit for contract import. */
const CONTRACT_MAX_BYTES = 10 * 1024 * 1024;

/** How large an upload may be, what a knowledge-base document may be, and the request-body memory all uploads in flight share. */
export const uploads = configSection({
  title: 'Uploads',
  variables: {
    IMAGE_MAX_BYTES: integer(1024)
      .default(10 * 1024 * 1024)
      .meta({ description: 'Largest image upload (413 past it)' }),
    KB_MAX_BYTES: integer(1)
      .default(50 * 1024 * 1024)
      .meta({ description: 'Largest knowledge-base document a client may declare (400 past it)' }),
    KB_PENDING_TTL_HOURS: z.coerce
      .number()
      .positive()
      .default(24)
      .meta({ description: 'Knowledge-base uploads never completed are removed after this' }),
    KB_SWEEP_INTERVAL_MS: integer(10)
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
    UPLOAD_MEMORY_BUDGET_BYTES: integer(1024 * 1024)
      .default(100 * 1024 * 1024)
      .meta({
        description:
          'Request-body bytes all uploads and signed-in JSON bodies in flight may hold; past it 503 with `Retry-After`',
      }),
    UPLOAD_MEMORY_PER_ORGANIZATION_BYTES: integer(1024 * 1024)
      .default(25 * 1024 * 1024)
      .meta({ description: "…of which one organization's may hold; past it 429 with `Retry-After`" }),
    UPLOAD_MEMORY_PER_CALLER_BYTES: integer(1024 * 1024)
      .default(16 * 1024 * 1024)
      .meta({ description: "…and one caller's (user or API key); past it 429 with `Retry-After`" }),
    UPLOAD_IDLE_TIMEOUT_MS: integer(100).default(10_000).meta({
      description:
        'A request body (upload or JSON, `/api` and `/trpc`) from which no byte arrives for this long is cut off (408)',
    }),
  },
  check: (env, ctx) => {
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
  },
  settings: (env) => ({
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
  }),
});

/** Where files live (local disk or an S3-compatible store) and how long the addresses it signs stay valid. */
export const storage = configSection({
  title: 'Storage',
  variables: {
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
    UPLOAD_URL_EXPIRES_SECONDS: integer(10, 7 * 24 * 3600)
      .default(900)
      .meta({ description: 'How long a signed upload address stays valid' }),
    DOWNLOAD_URL_EXPIRES_SECONDS: integer(10, 7 * 24 * 3600)
      .default(3600)
      .meta({ description: 'How long a signed download address stays valid (list again for fresh ones)' }),
  },
  check: (env, ctx) => {
    if (env.STORAGE_DRIVER === 's3') {
      for (const name of ['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const) {
        if (!env[name])
          ctx.addIssue({ code: 'custom', path: [name], message: 'is required when STORAGE_DRIVER=s3' });
      }
    }
  },
  settings: (env) => ({
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
  }),
});

/** The SSE and tRPC subscription streams: each caller's, organization's and instance's share, and how they are kept. */
export const streams = configSection({
  title: 'Live event streams',
  variables: {
    STREAMS_PER_CALLER: integer(1, 1000).default(5).meta({
      description:
        'Live streams (SSE and tRPC subscriptions, `generation.onProgress` included) one user or API key may hold open, counted across every instance (429 past it)',
    }),
    STREAMS_PER_ORGANIZATION: integer(1, 10_000).default(100).meta({
      description:
        'Live streams all the users and API keys of one organization may hold open, counted across every instance (429 past it); below STREAMS_PER_INSTANCE, so that one organization never fills an instance',
    }),
    STREAMS_PER_INSTANCE: integer(2, 10_000).default(192).meta({
      description:
        "Live streams one instance holds, whoever's (503 past it): keep it well below the connections the load balancer opens to one instance (`maxconn 256` in deploy/haproxy.cfg), so ordinary requests always find room",
    }),
    STREAM_LEASE_SECONDS: integer(1, 300).default(15).meta({
      description:
        "How long an instance's open streams count after it last renewed them (it does every third of this): the streams of an instance killed without a stop stop counting against their organization's cap by then",
    }),
    STREAM_BUFFER_BYTES: integer(16 * 1024)
      .default(256 * 1024)
      .meta({
        description:
          'Events a live stream may hold for a client that does not read them; past it the client is disconnected (it resumes with `Last-Event-ID`)',
      }),
    STREAM_AUTH_CHECK_SECONDS: z.coerce.number().positive().max(50).default(30).meta({
      description:
        "How often each instance checks its open streams' sessions and API keys: a revoked one's streams end by then (at most 50, so that they end within a minute)",
    }),
    STREAM_POLL_INTERVAL_MS: integer(10, 60_000).default(1000).meta({
      description:
        'While streams are open, how often the instance reads the event log even without a notification (a lost one)',
    }),
  },
  check: (env, ctx) => {
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
  },
  settings: (env) => ({
    /** The live event streams of this instance (adapters/events/live-hub.ts). */
    liveEvents: {
      streamsPerCaller: env.STREAMS_PER_CALLER,
      streamsPerOrganization: env.STREAMS_PER_ORGANIZATION,
      streamsPerInstance: env.STREAMS_PER_INSTANCE,
      leaseMs: env.STREAM_LEASE_SECONDS * 1000,
      bufferBytes: env.STREAM_BUFFER_BYTES,
      authCheckMs: env.STREAM_AUTH_CHECK_SECONDS * 1000,
      pollIntervalMs: env.STREAM_POLL_INTERVAL_MS,
    },
  }),
});
