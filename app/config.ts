import path from 'node:path';
import { z } from 'zod';
import { limits, signIn, storage, streams, uploads } from './config/requests.ts';
import type { SharedSettings } from './config/section.ts';
import { database, http, observability, service } from './config/server.ts';
import { contracts, exports, notifications, speech } from './config/workers.ts';

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

type Section = (typeof configSections)[number];
/** `A | B` → `A & B`: what the sections give together. */
type All<Union> = (Union extends unknown ? (whole: Union) => void : never) extends (
  whole: infer Every,
) => void
  ? Every
  : never;

const variables = Object.assign({}, ...configSections.map((section) => section.variables)) as All<
  Section['variables']
>;

// A name in two sections would silently take the later one's rules.
const named = configSections.flatMap((section) => Object.keys(section.variables));
if (new Set(named).size !== named.length) {
  throw new Error('app/config: a variable is named by two sections');
}

/** The environment variables, each with its meaning (`description`): the sections' together. */
export const environmentSchema = z.object(variables).superRefine((env, ctx) => {
  // `as never`: each section takes its own variables, a part of `env` TypeScript cannot match to a union.
  for (const section of configSections) section.check?.(env as never, ctx);
});

export type AppConfig = All<ReturnType<Section['settings']>>;

function toConfig(env: z.output<typeof environmentSchema>): AppConfig {
  const shared: SharedSettings = { dataDir: path.resolve(env.DATA_DIR) };
  return Object.assign({}, ...configSections.map((section) => section.settings(env as never, shared)));
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/**
 * Whether tracing is asked for (OTEL_EXPORTER_OTLP_ENDPOINT), read before anything else is loaded
 * (app/main.ts): the tracing SDK must hook the modules it instruments before they are imported.
 */
export function tracingRequested(source: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(source.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/** Parses the environment; empty strings count as unset so `FOO=` in a .env file means "default". */
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
