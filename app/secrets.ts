import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../domain/ports/logger.ts';
import { type AppConfig, ConfigError } from './config.ts';

/**
 * Every secret the service needs, one per purpose (a leak of one forges nothing else).
 * Each comes from its environment variable. Outside production, when the variable is unset,
 * it is generated once into `DATA_DIR/secrets/<file>` (mode 0600) and read from there on
 * later starts; in production the service refuses to start without it. No secret is a value
 * in the source. To add one: an entry here, the variable in `config.ts` (its `secrets` block,
 * same key) with its description, and `npm run docs:config` (docs/configuration.md).
 */
const SECRET_SPECS = {
  /** Signs the local storage driver's `/storage` addresses; S3 signs with its own credentials. */
  storageSigning: {
    variable: 'STORAGE_SIGNING_SECRET',
    file: 'storage-signing-secret',
    neededWhen: (config: AppConfig) => config.storage.driver === 'local',
  },
  /** Encrypts webhook signing secrets at rest (adapters/secret-box.ts). */
  encryption: {
    variable: 'ENCRYPTION_KEY',
    file: 'encryption-key',
    neededWhen: () => true,
  },
} satisfies Record<keyof AppConfig['secrets'], SecretSpec>;

interface SecretSpec {
  variable: string;
  file: string;
  neededWhen: (config: AppConfig) => boolean;
}

export type SecretName = keyof typeof SECRET_SPECS;

/** The resolved secrets. Values are reached by name only, so the object never serialises them. */
export interface Secrets {
  get(name: SecretName): string;
}

/** Shortest secret accepted, from the environment or a file (generated ones are 43 characters). */
export const SECRET_MIN_LENGTH = 32;

/**
 * Resolves every secret this configuration needs (see `SECRET_SPECS`). Throws a
 * `ConfigError` naming the variable (never a value) when one is missing in production,
 * or when a secret file is unreadable, too short or readable by others.
 */
export async function loadSecrets(config: AppConfig, logger: Logger): Promise<Secrets> {
  const values = new Map<SecretName, string>();
  const problems: string[] = [];
  const generatedFiles: string[] = [];
  const directory = path.join(config.dataDir, 'secrets');
  for (const [name, spec] of Object.entries(SECRET_SPECS) as [SecretName, SecretSpec][]) {
    const given = config.secrets[name];
    if (given) {
      values.set(name, given);
      continue;
    }
    if (!spec.neededWhen(config)) continue;
    if (config.isProduction) {
      problems.push(
        `${spec.variable}: is required in production (a random string of at least ${SECRET_MIN_LENGTH} characters, e.g. \`openssl rand -base64 32\`)`,
      );
      continue;
    }
    const file = path.join(directory, spec.file);
    try {
      values.set(name, await readOrCreateSecretFile(file));
      generatedFiles.push(file);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems.map((problem) => `${spec.variable}: ${problem}`));
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  if (generatedFiles.length > 0) {
    // Names the files, never the values.
    logger.warn(
      { files: generatedFiles },
      'secrets not set in the environment are read from generated files under DATA_DIR (development only; production requires the variables)',
    );
  }
  return {
    get(name) {
      const value = values.get(name);
      if (value === undefined) {
        throw new Error(`${SECRET_SPECS[name].variable} is not available in this configuration`);
      }
      return value;
    },
  };
}

/**
 * Reads a generated secret, or creates it: written in full to a private temporary file,
 * then linked to its name, which fails if another process got there first (then its value
 * is read). So two processes starting on one DATA_DIR agree, and nobody reads half a file.
 */
async function readOrCreateSecretFile(file: string): Promise<string> {
  try {
    return await readSecretFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const value = randomBytes(32).toString('base64url');
  const temporary = `${file}.${randomBytes(8).toString('hex')}.tmp`;
  await writeFile(temporary, `${value}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(temporary, file);
    return value;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return await readSecretFile(file);
  } finally {
    await rm(temporary, { force: true });
  }
}

async function readSecretFile(file: string): Promise<string> {
  const info = await stat(file);
  if ((info.mode & 0o077) !== 0) {
    throw new ConfigError([
      `${file} is accessible to other users (mode ${(info.mode & 0o777).toString(8)}): chmod 600 it`,
    ]);
  }
  const value = (await readFile(file, 'utf8')).trim();
  if (value.length < SECRET_MIN_LENGTH) {
    throw new ConfigError([
      `${file} holds fewer than ${SECRET_MIN_LENGTH} characters: delete it to have a new one generated`,
    ]);
  }
  return value;
}
