/**
 * Writes a migration with the SQL that brings the database to the entities' schema, and
 * lists it in migrations/index.ts. Usage: npm run db:migration:create [-- name]
 */
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

const migrationsDir = path.resolve(import.meta.dirname, '../migrations');

/** migrations/index.ts lists the migration files present, in name (= time) order. */
async function writeIndex(): Promise<void> {
  const files = (await readdir(migrationsDir)).filter((f) => /^Migration\d[^.]*\.ts$/.test(f)).sort();
  const classes = files.map((f) => f.replace(/\.ts$/, ''));
  const lines = [
    '// Every migration, in order. `npm run db:migration:create` writes a new file and adds it here.',
    ...files.map((f, i) => `import { ${classes[i]} } from './${f}';`),
    '',
    'export const migrations = [',
    ...classes.map((c) => `  { name: '${c}', class: ${c} },`),
    '];',
    '',
  ];
  await writeFile(path.join(migrationsDir, 'index.ts'), lines.join('\n'));
}

// The index first: the ORM config imports it, and a removed file must not break the import.
await writeIndex();
const { loadConfig } = await import('../server/config.ts');
const { openDatabase } = await import('../server/database.ts');
const { createLogger } = await import('../server/logger.ts');

const database = await openDatabase(loadConfig(), createLogger('warn'));
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
