import { z } from 'zod';

/** `true`/`false`/`1`/`0`, as environment variables spell a yes or a no. */
export const booleanFlag = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

/** What the settings of every section may draw on beside their own variables. */
export interface SharedSettings {
  /** `DATA_DIR`, resolved: where files the service makes itself live. */
  dataDir: string;
}

type Variables<Shape extends z.ZodRawShape> = z.output<z.ZodObject<Shape>>;

/**
 * One section of the configuration (app/config/*.ts): the environment variables of one thing the
 * service does, each with its `description` (and `defaultText` where the default is not a schema
 * value), the checks among them, and what they become in `AppConfig`. `app/config.ts` joins the
 * sections into one schema; `npm run docs:config` writes one table per section, under its `title`.
 */
export interface ConfigSection<Shape extends z.ZodRawShape, Settings> {
  title: string;
  variables: Shape;
  /** Rules across this section's variables; each problem names its variable. */
  check?: (env: Variables<Shape>, ctx: z.RefinementCtx) => void;
  settings: (env: Variables<Shape>, shared: SharedSettings) => Settings;
}

/** Identity: it lets TypeScript type `check` and `settings` from `variables`. */
export function configSection<Shape extends z.ZodRawShape, Settings>(
  section: ConfigSection<Shape, Settings>,
): ConfigSection<Shape, Settings> {
  return section;
}

/** A whole number, at least `min` (and at most `max`), from an environment variable's text. */
export function integer(min: number, max?: number) {
  const atLeast = z.coerce.number().int().min(min);
  return max === undefined ? atLeast : atLeast.max(max);
}
