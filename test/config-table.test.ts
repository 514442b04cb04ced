import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { environmentSchema } from '../app/config.ts';
import { CONFIGURATION_FILE, configTable, withConfigTable } from '../scripts/config-table.ts';
import { projectRoot } from './helpers/processes.ts';

/**
 * docs/configuration.md's tables are written from app/config/ (`npm run docs:config`): these
 * fail when the two disagree, or when the service reads a variable the schema does not list.
 */
describe('the configuration table (docs/configuration.md)', () => {
  it('is what `npm run docs:config` writes from app/config/', () => {
    const written = readFileSync(CONFIGURATION_FILE, 'utf8');
    expect(
      written === withConfigTable(written),
      'docs/configuration.md differs from app/config/: run `npm run docs:config` and commit the result',
    ).toBe(true);
  });

  it('has a row, with a meaning, for every variable of the schema', () => {
    const table = configTable();
    for (const name of Object.keys(environmentSchema.shape)) {
      expect(table, `${name} is missing from the table`).toContain(`| \`${name}\` `);
    }
  });

  it('is the only way the service reads its environment: no process.env outside app/config.ts', () => {
    const readers: string[] = [];
    const walk = (folder: string) => {
      for (const entry of readdirSync(path.join(projectRoot, folder), { withFileTypes: true })) {
        const relative = path.join(folder, entry.name);
        if (entry.isDirectory()) walk(relative);
        else if (entry.name.endsWith('.ts') && relative !== path.join('app', 'config.ts')) {
          if (readFileSync(path.join(projectRoot, relative), 'utf8').includes('process.env'))
            readers.push(relative);
        }
      }
    };
    for (const folder of ['app', 'adapters', 'domain', 'rest', 'routers', 'entities']) walk(folder);
    expect(
      readers,
      'read the variable in a section of app/config/ (with a description) and pass it on',
    ).toEqual([]);
  });
});
