/**
 * Operators' CLI, calling procedures in-process against DATABASE_URL or the embedded
 * database (whether or not the server is running).
 *
 *   npm run admin -- create-user --organization "Acme" --email a@acme.test [--password-file <path>] [--name …] [--role …]
 *   npm run admin -- create-api-key --organization "Acme" --name "CI" --access read|write|admin [--expires-at <ISO 8601>]
 *   npm run admin -- list-users --organization "Acme"
 *   npm run admin -- set-password --email a@acme.test [--password-file <path>]   (else typed, or stdin)
 *
 * Prints one JSON line on stdout; diagnostics go to stderr.
 */
import { parseArgs } from 'node:util';
import { TRPCError } from '@trpc/server';
import { createProcessLogger } from '../adapters/logger/logger.ts';
import { ConfigError, loadConfig } from '../app/config.ts';
import { openDatabase } from '../app/database.ts';
import { createInProcessCaller } from '../app/in-process.ts';
import { loadSecrets } from '../app/secrets.ts';
import { createServices } from '../app/services.ts';
import { issuesOf } from '../routers/issues.ts';
import { readSecret } from './read-secret.ts';

const USAGE = `Usage:
  npm run admin -- create-user --organization <name> --email <email> [--password-file <path>] [--name <name>] [--role owner|admin|member]
  npm run admin -- create-api-key --organization <name> --name <name> --access read|write|admin [--expires-at <ISO 8601>]
    (prints the key's secret once: it is stored only as a hash)
  npm run admin -- list-users --organization <name>
  npm run admin -- set-password --email <email> [--password-file <path>]
      (every session of the user ends)
  A password is read from --password-file, else typed at the terminal (not echoed), else from
  standard input; never from the command line, which ps shows and npm prints.
`;

type Caller = ReturnType<typeof createInProcessCaller>;

/** An input field's flag on the command line: `expiresAt` is spelt `--expires-at`. */
const flagOf = (option: string) => `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

/**
 * Each command: its options, how they become the procedure's input (before the database is
 * opened: a password is typed first), and the procedure it calls.
 */
const COMMANDS: Record<
  string,
  {
    options: NonNullable<Parameters<typeof parseArgs>[0]>['options'];
    input?(values: Values): Promise<unknown>;
    call(caller: Caller, input: never): Promise<unknown>;
  }
> = {
  'create-user': {
    options: {
      organization: { type: 'string' },
      email: { type: 'string' },
      'password-file': { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
    },
    input: async ({ 'password-file': file, ...values }) => ({
      ...values,
      password: await readSecret('Password: ', file as string | undefined),
    }),
    call: (caller, input) => caller.admin.createUser(input),
  },
  'create-api-key': {
    options: {
      organization: { type: 'string' },
      name: { type: 'string' },
      access: { type: 'string' },
      'expires-at': { type: 'string' },
    },
    input: async ({ 'expires-at': expiresAt, ...values }) => ({
      ...values,
      ...(expiresAt === undefined ? {} : { expiresAt }),
    }),
    call: (caller, input) => caller.admin.createApiKey(input),
  },
  'list-users': {
    options: { organization: { type: 'string' } },
    call: (caller, input) => caller.admin.listOrganizationUsers(input),
  },
  'set-password': {
    options: { email: { type: 'string' }, 'password-file': { type: 'string' } },
    input: async ({ 'password-file': file, ...values }) => ({
      ...values,
      password: await readSecret('New password: ', file as string | undefined),
    }),
    call: (caller, input) => caller.admin.setPassword(input),
  },
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const entry = command ? COMMANDS[command] : undefined;
  if (!entry || rest.includes('--help')) {
    process.stderr.write(USAGE);
    return command === undefined || rest.includes('--help') ? 0 : 2;
  }
  if (rest.some((arg) => arg === '--password' || arg.startsWith('--password='))) {
    process.stderr.write(`error: --password is not taken: ${PASSWORD_SOURCES}\n`);
    return 1;
  }
  const { values } = parseArgs({ args: rest, options: entry.options, strict: true });
  const input = entry.input ? await entry.input(values) : values;
  // A refused field is named as it was given: a password read from a file by --password-file.
  const flagOfField = (field: string) =>
    field !== 'password'
      ? flagOf(field)
      : (values as Values)['password-file']
        ? '--password-file'
        : 'the password';

  const config = loadConfig();
  // Errors only: the development secrets' notice of `npm start` is noise before one JSON line.
  const logger = createProcessLogger(config, { fd: 2, level: 'error' });
  const secrets = await loadSecrets(config, logger);
  const database = await openDatabase(config, logger, secrets);
  try {
    const services = await createServices(config, logger, secrets);
    const caller = createInProcessCaller(database.orm, services);
    let result: unknown;
    try {
      result = await entry.call(caller, input as never);
    } catch (error) {
      const issues = error instanceof TRPCError ? issuesOf(error) : undefined;
      if (!issues) throw error;
      const details = issues.map((i) => `  ${flagOfField(i.path.join('.'))}: ${i.message}`).join('\n');
      process.stderr.write(`error: invalid arguments\n${details}\n`);
      return 1;
    }
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

const PASSWORD_SOURCES =
  'ps shows a command line to every user of the machine, and npm prints it. Give --password-file <path>, type it when asked, or pipe it on standard input.';

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof TRPCError) {
      process.stderr.write(`error: ${error.message}\n`);
    } else if (error instanceof ConfigError || (error instanceof Error && error.name === 'TypeError')) {
      process.stderr.write(`error: ${error.message}\n${USAGE}`);
    } else {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    process.exit(1);
  },
);
