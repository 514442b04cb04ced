/**
 * Writes a migration with the SQL that brings the database to the entities' schema, and
 * lists it in migrations/index.ts. Usage: npm run db:migration:create [-- name]
 */
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../server/config.ts';
import { openDatabase } from '../server/database.ts';
import { createLogger } from '../server/logger.ts';

const config = loadConfig();
const logger = createLogger('warn');
const database = await openDatabase(config, logger);
try {
  const result = await database.orm.migrator.create(undefined, false, false, process.argv[2]);
  if (!result.fileName) {
    console.log('No schema changes: the entities match the database.');
  } else {
    console.log(`Wrote migrations/${result.fileName}`);
    await writeIndex();
  }
} finally {
  await database.close();
}

async function writeIndex(): Promise<void> {
  const dir = path.resolve('migrations');
  const files = (await readdir(dir)).filter((f) => /^Migration\d+.*\.ts$/.test(f)).sort();
  const classes = files.map((f) => f.replace(/\.ts$/, ''));
  const lines = [
    '// Every migration, in order. `npm run db:migration:create` writes a new file and adds it here.',
    ...files.map((f, i) => `import { ${classes[i]} } from './${f}';`),
    '',
    `export const migrations = [${classes.map((c) => `{ name: '${c}', class: ${c} }`).join(', ')}];`,
    '',
  ];
  await writeFile(path.join(dir, 'index.ts'), lines.join('\n'));
}
