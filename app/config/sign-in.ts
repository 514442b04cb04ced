import { z } from 'zod';
import { configSection, integer } from './section.ts';

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
