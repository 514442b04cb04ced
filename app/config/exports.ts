import path from 'node:path';
import { booleanFlag, configSection, integer } from './section.ts';

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
    EXPORT_WORKER_MEMORY_MB: integer(64, 8192).default(512).meta({
      description:
        'Memory of one export’s render process and its ffmpeg together (resident, read from /proc; the heap alone where there is none): past it the export fails',
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
