/**
 * Operators' CLI, calling procedures in-process against DATABASE_URL or the embedded
 * database (whether or not the server is running).
 *
 *   npm run admin -- create-user --organization "Acme" --email a@acme.test --password '…' [--name …] [--role …]
 *   npm run admin -- create-api-key --organization "Acme" --name "CI" --access read|write|admin [--expires-at <ISO 8601>]
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
  npm run admin -- create-api-key --organization <name> --name <name> --access read|write|admin [--expires-at <ISO 8601>]
    (prints the key's secret once: it is stored only as a hash)
`;

/** Each command: its options (all strings) and the in-process call they feed. */
const COMMANDS = {
  'create-user': {
    options: ['organization', 'email', 'password', 'name', 'role'],
    run: (caller: Caller, input: never) => caller.admin.createUser(input),
  },
  'create-api-key': {
    options: ['organization', 'name', 'access', 'expiresAt'],
    run: (caller: Caller, input: never) => caller.admin.createApiKey(input),
  },
} as const;
type Caller = ReturnType<typeof createInProcessCaller>;

/** `expiresAt` is spelt `--expires-at` on the command line. */
const flagOf = (option: string) => option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name && Object.hasOwn(COMMANDS, name) ? COMMANDS[name as keyof typeof COMMANDS] : undefined;
  if (!command || rest.includes('--help')) {
    process.stderr.write(USAGE);
    return name === undefined || rest.includes('--help') ? 0 : 2;
  }
  const { values: flags } = parseArgs({
    args: rest,
    options: Object.fromEntries(
      command.options.map((option) => [flagOf(option), { type: 'string' as const }]),
    ),
    strict: true,
  });
  const values = Object.fromEntries(
    command.options
      .filter((option) => flags[flagOf(option)] !== undefined)
      .map((option) => [option, flags[flagOf(option)]]),
  );

  const config = loadConfig();
  const logger = createProcessLogger(config, { fd: 2, level: 'warn' });
  const secrets = await loadSecrets(config, logger);
  const database = await openDatabase(config, logger, secrets);
  try {
    const services = createServices(config, logger, secrets);
    const caller = createInProcessCaller(database.orm, services);
    const result = await command.run(caller, values as never);
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
      const details = issues?.map((i) => `  --${flagOf(i.path.join('.'))}: ${i.message}`).join('\n');
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
