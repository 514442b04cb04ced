import path from 'node:path';
import { z } from 'zod';
import { contracts } from './config/contracts.ts';
import { database } from './config/database.ts';
import { exports } from './config/exports.ts';
import { http } from './config/http.ts';
import { limits } from './config/limits.ts';
import { notifications } from './config/notifications.ts';
import { observability } from './config/observability.ts';
import type { SharedSettings } from './config/section.ts';
import { service } from './config/service.ts';
import { signIn } from './config/sign-in.ts';
import { speech } from './config/speech.ts';
import { storage } from './config/storage.ts';
import { streams } from './config/streams.ts';
import { uploads } from './config/uploads.ts';

/**
 * Every setting of the service, read once from the environment at start. Each section of
 * app/config/ holds the variables of one thing the service does (decision 080); this file joins
 * them into one schema and one `AppConfig`. A bad value stops the process with one line per
 * problem (see `loadConfig`).
 */

/** In the order of docs/configuration.md, one table each (`npm run docs:config`, scripts/config-table.ts). */
export const configSections = [
  service,
  http,
  database,
  signIn,
  limits,
  uploads,
  storage,
  contracts,
  speech,
  exports,
  notifications,
  streams,
  observability,
] as const;

const variables = {
  ...service.variables,
  ...http.variables,
  ...database.variables,
  ...signIn.variables,
  ...limits.variables,
  ...uploads.variables,
  ...storage.variables,
  ...contracts.variables,
  ...speech.variables,
  ...exports.variables,
  ...notifications.variables,
  ...streams.variables,
  ...observability.variables,
};

// A name in two sections would silently take the later one's rules.
const named = configSections.flatMap((section) => Object.keys(section.variables));
if (new Set(named).size !== named.length || named.length !== Object.keys(variables).length) {
  throw new Error('app/config: a variable is named by two sections, or a section is left out of the schema');
}

/** The environment variables, each with its meaning (`description`): the sections' together. */
export const environmentSchema = z.object(variables).superRefine((env, ctx) => {
  for (const section of configSections) section.check?.(env, ctx);
});

type Environment = z.output<typeof environmentSchema>;

export type AppConfig = ReturnType<typeof toConfig>;

function toConfig(env: Environment) {
  const shared: SharedSettings = { dataDir: path.resolve(env.DATA_DIR) };
  return {
    ...service.settings(env, shared),
    ...http.settings(env, shared),
    ...database.settings(env, shared),
    ...signIn.settings(env, shared),
    ...limits.settings(env, shared),
    ...uploads.settings(env, shared),
    ...storage.settings(env, shared),
    ...contracts.settings(env, shared),
    ...speech.settings(env, shared),
    ...exports.settings(env, shared),
    ...notifications.settings(env, shared),
    ...streams.settings(env, shared),
    ...observability.settings(env, shared),
  };
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Parses the environment; empty strings count as unset so `FOO=` in a .env file means "default". */
/**
 * Whether tracing is asked for (OTEL_EXPORTER_OTLP_ENDPOINT), read before anything else is loaded
 * (app/main.ts): the tracing SDK must hook the modules it instruments before they are imported.
 */
export function tracingRequested(source: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(source.OTEL_EXPORTER_OTLP_ENDPOINT);
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): AppConfig {
  const env = Object.fromEntries(
    Object.entries(source).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    // Name the variable and the rule, never echo the value: it may be a secret.
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  return toConfig(parsed.data);
}
