/**
 * Writes a migration with the SQL that brings the database to the entities' schema, and
 * lists it in migrations/index.ts. Usage: npm run db:migration:create [-- name]
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

const migrationsDir = path.resolve(import.meta.dirname, '../migrations');

/**
 * migrations/index.ts lists the migration files present, in name (= time) order. A migration
 * that exports a function of the SecretBox (it needs the encryption key) is called with it.
 */
async function writeIndex(): Promise<void> {
  const files = (await readdir(migrationsDir)).filter((f) => /^Migration\d[^.]*\.ts$/.test(f)).sort();
  const classes = files.map((f) => f.replace(/\.ts$/, ''));
  const needsBox = await Promise.all(
    files.map(async (f) =>
      (await readFile(path.join(migrationsDir, f), 'utf8')).includes('(box: SecretBox)'),
    ),
  );
  const lines = [
    '// Every migration, in order. `npm run db:migration:create` writes a new file and adds it here.',
    "// A migration that needs the service's encryption key is a function of the SecretBox.",
    "import type { SecretBox } from '../domain/ports/secret-box.ts';",
    ...files.map((f, i) => `import { ${classes[i]} } from './${f}';`),
    '',
    'export const migrationsFor = (box: SecretBox) => [',
    ...classes.map((c, i) => `  { name: '${c}', class: ${needsBox[i] ? `${c}(box)` : c} },`),
    '];',
    '',
  ];
  await writeFile(path.join(migrationsDir, 'index.ts'), lines.join('\n'));
}

// The index first: the ORM config imports it, and a removed file must not break the import.
await writeIndex();
const { loadConfig } = await import('../app/config.ts');
const { openDatabase } = await import('../app/database.ts');
const { createLogger } = await import('../adapters/logger/logger.ts');

const { loadSecrets } = await import('../app/secrets.ts');
const config = loadConfig();
const logger = createLogger('warn');
const database = await openDatabase(config, logger, await loadSecrets(config, logger));
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
