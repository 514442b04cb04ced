/**
 * `npm run build:client`: builds the `deck-service/client` entry into `dist/`: declarations for
 * the client and every server type it names (tsc, client/tsconfig.json), and the client's
 * JavaScript with its types stripped. At run time the client imports packages only (the server's
 * modules are type imports, erased), which this checks, so the package never runs server code.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { stripTypeScriptTypes } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');

await rm(dist, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'client/tsconfig.json'],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
const source = await readFile(path.join(root, 'client/index.ts'), 'utf8');
const javascript = stripTypeScriptTypes(source, { mode: 'strip' });
const relativeImports = [...javascript.matchAll(/\bfrom\s+['"](\.[^'"]*)['"]/g)].map((match) => match[1]);
if (relativeImports.length > 0) {
  throw new Error(`client/index.ts imports server modules at run time: ${relativeImports.join(', ')}`);
}
await mkdir(path.join(dist, 'client'), { recursive: true });
await writeFile(path.join(dist, 'client/index.js'), javascript);
console.log('built dist/client (index.js, index.d.ts and the declarations it names)');
