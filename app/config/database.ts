import { z } from 'zod';
import { configSection, integer } from './section.ts';

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
