/**
 * Operators' CLI, calling procedures in-process against DATABASE_URL or the embedded
 * database (whether or not the server is running).
 *
 *   npm run admin -- create-user --organization "Acme" --email a@acme.test --password '…' [--name …] [--role …]
 *
 * Prints one JSON line on stdout; diagnostics go to stderr.
 */
import { parseArgs } from 'node:util';
import { TRPCError } from '@trpc/server';
import { issuesOf } from '../routers/issues.ts';
import { ConfigError, loadConfig } from '../server/config.ts';
import { openDatabase } from '../server/database.ts';
import { createInProcessCaller } from '../server/in-process.ts';
import { createProcessLogger } from '../server/logger.ts';
import { loadSecrets } from '../server/secrets.ts';
import { createServices } from '../server/services.ts';

const USAGE = `Usage:
  npm run admin -- create-user --organization <name> --email <email> --password <password> [--name <name>] [--role owner|admin|member]
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'create-user' || rest.includes('--help')) {
    process.stderr.write(USAGE);
    return command === undefined || rest.includes('--help') ? 0 : 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      organization: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
    },
    strict: true,
  });

  const config = loadConfig();
  const logger = createProcessLogger(config, { fd: 2, level: 'warn' });
  const secrets = await loadSecrets(config, logger);
  const database = await openDatabase(config, logger, secrets);
  try {
    const services = createServices(config, logger, secrets);
    const caller = createInProcessCaller(database.orm, services);
    const result = await caller.admin.createUser(values as never);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof TRPCError) {
      const issues = issuesOf(error);
      const details = issues?.map((i) => `  --${i.path.join('.')}: ${i.message}`).join('\n');
      process.stderr.write(
        `error: ${issues ? 'invalid arguments' : error.message}\n${details ? `${details}\n` : ''}`,
      );
    } else if (error instanceof ConfigError || (error instanceof Error && error.name === 'TypeError')) {
      process.stderr.write(`error: ${error.message}\n${USAGE}`);
    } else {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    process.exit(1);
  },
);
