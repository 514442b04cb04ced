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
