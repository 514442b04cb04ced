/** The work done beside requests: reading contracts, speaking, rendering exports, delivering notifications. */
import path from 'node:path';
import { z } from 'zod';
import { booleanFlag, configSection, integer } from './section.ts';

/** How many contracts are read at once, how long and how large a reading may be, and the optional AI that names their variables. */
export const contracts = configSection({
  title: 'Contract reading',
  variables: {
    DOCUMENT_CONCURRENCY: integer(1, 16)
      .default(2)
      .meta({ description: 'Contracts read at once (worker threads)' }),
    DOCUMENT_QUEUE_MAX: integer(0, 1000).default(8).meta({
      description:
        "Contracts waiting to be read while every reader is busy; past it 503 with `Retry-After`. One organization's contracts hold at most half the readers and half the places (rounded up); past that share 429 with `Retry-After`",
    }),
    DOCUMENT_TIMEOUT_MS: integer(100)
      .default(60_000)
      .meta({ description: 'Longest reading of one contract (422 past it)' }),
    DOCUMENT_WORKER_MEMORY_MB: integer(64, 8192).default(512).meta({
      description:
        'Memory of one reading worker: its heap and the buffers it allocates (413 when a document outgrows it)',
    }),
    CONTRACT_MAX_TEXT_CHARS: integer(1000)
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
    CONTRACT_AI_TIMEOUT_MS: integer(100).default(20_000).meta({
      description: 'Longest wait for its answer; past it (or on any error) offline detection answers',
    }),
  },
  settings: (env) => ({
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
    contractAi: env.CONTRACT_AI_URL
      ? {
          url: env.CONTRACT_AI_URL.replace(/\/$/, ''),
          key: env.CONTRACT_AI_KEY,
          model: env.CONTRACT_AI_MODEL,
          timeoutMs: env.CONTRACT_AI_TIMEOUT_MS,
        }
      : null,
  }),
});

/** Which engine speaks (espeak-ng or ElevenLabs), its bounds, and the worker that narrates decks. */
export const speech = configSection({
  title: 'Speech and narration',
  variables: {
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
    SPEECH_TIMEOUT_MS: integer(100).default(15_000).meta({
      description:
        'Longest synthesis of one text: past it a FAQ is saved without audio and a narration job fails',
    }),
    SPEECH_CONCURRENCY: integer(1, 32).default(2).meta({
      description:
        'Syntheses at once: espeak-ng worker threads, or requests to ElevenLabs (at most its plan allows at once). Shared among organizations in turn; one organization holds at most all but one (with 1, that one: the others wait their turn)',
    }),
    SPEECH_MAX_AUDIO_BYTES: integer(16_384)
      .default(6 * 1024 * 1024)
      .meta({
        description:
          'Largest MP3 one FAQ answer, slide script or intro may make (6 MiB: 13 minutes of espeak-ng, 6.5 of ElevenLabs); a longer text is not spoken: the FAQ is saved without audio, with a warning, and a narration job fails',
      }),
    VOICES_CACHE_SECONDS: integer(0).default(3600).meta({
      description:
        'How long the voice list is kept before the engine is asked again (when it fails, the last list is served)',
    }),
    GENERATION_ENABLED: booleanFlag
      .default(true)
      .meta({ description: 'Whether this instance runs the narration worker' }),
    GENERATION_POLL_INTERVAL_MS: integer(10).default(1000).meta({
      description:
        "How often the narration worker looks for jobs it was not nudged about (another instance's, or left by a dead one)",
    }),
    GENERATION_CONCURRENCY: integer(1, 16)
      .default(2)
      .meta({ description: 'Narration jobs one instance runs at once' }),
    GENERATION_LEASE_SECONDS: integer(1, 3600).default(120).meta({
      description:
        'How long a narration job stays claimed without news from its instance (renewed after every slide): after it, a dead instance’s job goes on elsewhere',
    }),
  },
  settings: (env) => ({
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
    generation: {
      /** Whether this instance runs the narration generation worker. */
      enabled: env.GENERATION_ENABLED,
      pollIntervalMs: env.GENERATION_POLL_INTERVAL_MS,
      concurrency: env.GENERATION_CONCURRENCY,
      leaseSeconds: env.GENERATION_LEASE_SECONDS,
    },
  }),
});

/** The worker that renders decks to PDF, PPTX and video: how many at once, for how long, in how much memory, kept how long. */
export const exports = configSection({
  title: 'Deck exports',
  variables: {
    EXPORTS_ENABLED: booleanFlag
      .default(true)
      .meta({ description: 'Whether this instance runs the deck export worker' }),
    EXPORT_CONCURRENCY: integer(1, 16).default(2).meta({
      description: 'Deck exports one instance renders at once, each in a child process of its own',
    }),
    EXPORTS_PER_ORGANIZATION: integer(1, 100).default(2).meta({
      description:
        "Deck exports of one organization rendered at once on all instances together; its others wait (pending) while another organization's go ahead",
    }),
    EXPORT_POLL_INTERVAL_MS: integer(10).default(1000).meta({
      description:
        'How often the export worker looks for exports it was not nudged about, and renews the leases of those it renders (a cancel is seen within it)',
    }),
    EXPORT_LEASE_SECONDS: integer(1, 3600).default(60).meta({
      description:
        'How long an export stays claimed without news from its instance: after it, a dead instance’s export starts again elsewhere',
    }),
    EXPORT_TIMEOUT_MS: integer(1000).default(600_000).meta({
      description: 'Longest rendering of one export; past it the export fails',
    }),
    EXPORT_WORKER_MEMORY_MB: integer(256, 8192).default(512).meta({
      description:
        'Memory of one export’s render process and its ffmpeg together (resident, read from /proc; the heap alone where there is none): past it the export fails. A 5-minute video holds ~270 MB (docs/performance.md, bench:export)',
    }),
    EXPORT_RETENTION_DAYS: integer(1, 365).default(7).meta({
      description:
        'How long a finished export’s file is kept; then it is deleted and the export answers `file: null`',
    }),
    EXPORT_SWEEP_INTERVAL_MS: integer(10).default(600_000).meta({
      description: 'How often each instance deletes the files of expired exports (and of deleted decks)',
    }),
  },
  settings: (env, { dataDir }) => ({
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
  }),
});

/** The worker that delivers events to webhooks and e-mail: its pace, its retries, the mail server. */
export const notifications = configSection({
  title: 'Notifications',
  variables: {
    NOTIFICATIONS_ENABLED: booleanFlag
      .default(true)
      .meta({ description: 'Whether this instance dispatches events and sends notifications' }),
    NOTIFICATIONS_POLL_INTERVAL_MS: integer(10).default(1000).meta({
      description:
        'How often the notification worker looks for work it was not woken for (every recorded event, on any instance, wakes it at commit): retries coming due, deliveries whose lease lapsed',
    }),
    NOTIFICATIONS_CONCURRENCY: integer(1, 100)
      .default(32)
      .meta({ description: 'Notifications one instance sends at once (each waits on a receiver)' }),
    NOTIFICATIONS_LEASE_SECONDS: integer(1, 3600).default(15).meta({
      description:
        "A claimed delivery's lease, renewed while held: how long a dead instance's deliveries wait",
    }),
    WEBHOOK_TIMEOUT_MS: integer(100)
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
    WEBHOOK_REPLAY_MAX_DAYS: integer(1, 3650)
      .default(30)
      .meta({ description: 'How far back a replay may reach (400 past it)' }),
    WEBHOOK_REPLAY_MAX_EVENTS: integer(1, 1_000_000).default(10_000).meta({
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
  },
  settings: (env) => ({
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
  }),
});
