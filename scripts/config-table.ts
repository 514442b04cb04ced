/**
 * The configuration tables of docs/configuration.md, one per section of app/config/ (under the
 * section's title), written from the schema: every variable, its default (read from the schema, or
 * its `defaultText` where the default depends on NODE_ENV or is made at start) and its `description`.
 *
 *   node scripts/config-table.ts            # prints the tables
 *   npm run docs:config                     # rewrites it in docs/configuration.md
 *
 * test/config-table.test.ts fails when the file and the schema disagree.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import { configSections } from '../app/config.ts';

export const CONFIGURATION_FILE = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));
export const TABLE_START = '<!-- config-table:start — written by `npm run docs:config` from app/config/ -->';
export const TABLE_END = '<!-- config-table:end -->';

/** A default longer than this is written below the table, so the column stays narrow. */
const LONG_DEFAULT_CHARACTERS = 40;

interface VariableRow {
  name: string;
  defaultText: string;
  meaning: string;
}

/** The schema's default for a variable, if it has one (`.default(…)` is the outermost wrapper). */
function schemaDefault(schema: z.core.$ZodType): unknown {
  const def = schema._zod.def as { type: string; defaultValue?: unknown };
  return def.type === 'default' ? def.defaultValue : undefined;
}

function code(value: string): string {
  return `\`${value}\``;
}

/** Table cells hold no line breaks, and a `|` would end the cell. */
function cell(text: string): string {
  // Split, not a pattern around the line break: that pattern backtracks polynomially (test/redos.test.ts).
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ')
    .replaceAll('|', '\\|');
}

function rowsOf(variables: Record<string, z.ZodType>): {
  rows: VariableRow[];
  longDefaults: [name: string, value: string][];
} {
  const rows: VariableRow[] = [];
  const longDefaults: [string, string][] = [];
  for (const [name, schema] of Object.entries(variables)) {
    const meta = schema.meta() as { description?: string; defaultText?: string } | undefined;
    if (!meta?.description)
      throw new Error(`${name} has no description in app/config/ (.meta({ description }))`);
    const value = schemaDefault(schema);
    let defaultText = meta.defaultText ?? (value === undefined ? '—' : code(String(value)));
    if (
      meta.defaultText === undefined &&
      value !== undefined &&
      String(value).length > LONG_DEFAULT_CHARACTERS
    ) {
      longDefaults.push([name, String(value)]);
      defaultText = 'see below';
    }
    rows.push({ name: code(name), defaultText: cell(defaultText), meaning: cell(meta.description) });
  }
  return { rows, longDefaults };
}

/** One section's table, its columns padded so that it reads as a table in a terminal too. */
function sectionTable(variables: Record<string, z.ZodType>): string {
  const { rows, longDefaults } = rowsOf(variables);
  const header: VariableRow = { name: 'Variable', defaultText: 'Default', meaning: 'Meaning' };
  const columns = ['name', 'defaultText', 'meaning'] as const;
  const widths = columns.map((column) => Math.max(...[header, ...rows].map((row) => row[column].length)));
  const line = (row: VariableRow) =>
    `| ${columns.map((column, i) => row[column].padEnd(widths[i]!)).join(' | ')} |`;
  const rule = `| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`;
  const below = longDefaults.map(([name, value]) => `Default of ${code(name)}: ${code(value)}.`);
  return [line(header), rule, ...rows.map(line), ...(below.length > 0 ? ['', ...below] : [])].join('\n');
}

/** Every section's table under its title, in the order of app/config.ts. */
export function configTable(): string {
  return configSections
    .map((section) => `## ${section.title}\n\n${sectionTable(section.variables)}`)
    .join('\n\n');
}

/** `markdown` with the text between the two markers replaced by the table of today's schema. */
export function withConfigTable(markdown: string): string {
  const start = markdown.indexOf(TABLE_START);
  const end = markdown.indexOf(TABLE_END);
  if (start < 0 || end < start) {
    throw new Error(`docs/configuration.md must hold the two markers ${TABLE_START} and ${TABLE_END}`);
  }
  return `${markdown.slice(0, start + TABLE_START.length)}\n\n${configTable()}\n\n${markdown.slice(end)}`;
}

if (import.meta.main) {
  if (process.argv.includes('--write')) {
    const before = await readFile(CONFIGURATION_FILE, 'utf8');
    const after = withConfigTable(before);
    if (after === before) {
      console.log('docs/configuration.md is up to date');
    } else {
      await writeFile(CONFIGURATION_FILE, after);
      console.log('docs/configuration.md: tables rewritten from app/config/');
    }
  } else {
    console.log(configTable());
  }
}
