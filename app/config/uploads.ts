import { z } from 'zod';
import { configSection, integer } from './section.ts';

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
