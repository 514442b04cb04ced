import { z } from 'zod';
import { configSection, integer } from './section.ts';

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
