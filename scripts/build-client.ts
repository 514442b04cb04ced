/**
 * `npm run build:client` (and `npm run build` in client/): builds the package @deck-service/client
 * into client/dist/, with client/'s own tools (TypeScript 5, rollup-plugin-dts, openapi-typescript:
 * they need TypeScript 5's compiler API, which this project's TypeScript 7 lacks).
 *
 * 1. The OpenAPI document the service serves, and `paths` generated from it by openapi-typescript.
 * 2. tsc compiles client/src (strict): JavaScript, and declarations for it and every server type
 *    the router's type names.
 * 3. rollup-plugin-dts bundles the declarations into one file per entry; the server's context,
 *    trpc-to-openapi's route metadata and zod's File stand in as small stubs (client/declaration-stubs)
 *    so that no server module or server dependency is named. The build fails if one still is.
 */
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildOpenApiDocument } from '../rest/openapi-document.ts';

const root = path.resolve(import.meta.dirname, '..');
const client = path.join(root, 'client');
const build = path.join(client, 'build');
const dist = path.join(client, 'dist');
/** What the package's files may import: its dependencies, nothing else. */
// (tRPC's own declarations name its subscriptions' tracked data from its core subpath, as @trpc/client's do.)
const ALLOWED_IMPORTS = new Set([
  '@trpc/client',
  '@trpc/server',
  '@trpc/server/unstable-core-do-not-import',
  'openapi-fetch',
]);
const ENTRIES = ['index', 'rest'];

execFileSync('bash', [path.join(root, 'scripts/install-rest-client.sh')], { stdio: 'inherit' });
const requireFromClient = createRequire(path.join(client, 'package.json'));
const tool = (name: string) => requireFromClient.resolve(name);

await rm(build, { recursive: true, force: true });
await rm(dist, { recursive: true, force: true });
await mkdir(build, { recursive: true });

// 1. The document, as GET /api/openapi.json answers it, and its types.
await writeFile(path.join(build, 'openapi.json'), JSON.stringify(buildOpenApiDocument()));
execFileSync(
  process.execPath,
  [
    path.join(path.dirname(tool('openapi-typescript/package.json')), 'bin/cli.js'),
    path.join(build, 'openapi.json'),
    '--output',
    path.join(build, 'openapi.ts'),
  ],
  { cwd: client, stdio: ['ignore', 'ignore', 'inherit'] },
);

// 2. JavaScript and declarations (the server's code type-checked too, as TypeScript 5 sees it).
execFileSync(process.execPath, [tool('typescript/bin/tsc'), '-p', path.join(client, 'tsconfig.json')], {
  cwd: client,
  stdio: 'inherit',
});
const out = path.join(build, 'out');
await mkdir(dist, { recursive: true });
for (const file of ['index', 'rest', 'base-url']) {
  await copyFile(path.join(out, 'client/src', `${file}.js`), path.join(dist, `${file}.js`));
}

// 3. One declaration file per entry, with the server's types inlined.
// client/'s rollup, not the older one some root tool brings: typed here by what this script uses.
type Bundle = { write(options: object): Promise<unknown>; close(): Promise<void> };
const { rollup } = (await import(pathToFileURL(tool('rollup')).href)) as {
  rollup(options: object): Promise<Bundle>;
};
const { dts } = (await import(pathToFileURL(tool('rollup-plugin-dts')).href)) as { dts(): object };
const stub = (name: string) => path.join(client, 'declaration-stubs', name);
const STUBS: Record<string, string> = {
  [path.join(out, 'routers/context.d.ts')]: stub('context.d.ts'),
  'trpc-to-openapi': stub('trpc-to-openapi.d.ts'),
  'zod/v4/core': stub('zod-core.d.ts'),
};
for (const entry of ENTRIES) {
  const bundle = await rollup({
    input: path.join(out, 'client/src', `${entry}.d.ts`),
    // Every package stays an import here (the server's too, as the modules around a stub name
    // them); the check below fails the build if one survives into the bundle.
    external: (id: string) => !STUBS[id] && !id.startsWith('.') && !path.isAbsolute(id),
    plugins: [
      {
        name: 'server-stubs',
        resolveId(source: string, importer: string | undefined) {
          if (STUBS[source]) return STUBS[source];
          if (importer && source.startsWith('.')) {
            const target = path.resolve(path.dirname(importer), source).replace(/\.(js|ts)$/, '.d.ts');
            return STUBS[target] ?? null;
          }
          return null;
        },
      },
      dts(),
    ],
    onwarn(warning: { message: string }) {
      throw new Error(`bundling ${entry}.d.ts: ${warning.message}`);
    },
  });
  await bundle.write({
    file: path.join(dist, `${entry}.d.ts`),
    format: 'es',
    // @trpc/server's declarations name Disposable: an integrator's compiler gets its lib from here,
    // whatever their tsconfig's `lib` (else 3 errors with skipLibCheck: false).
    banner: entry === 'index' ? '/// <reference lib="esnext.disposable" />' : undefined,
  });
  await bundle.close();
}

/** A quoted module name at the start of `text`: `'x'` or `"x"`. */
function unquote(text: string): string {
  return text.slice(1, text.indexOf(text[0]!, 1));
}

/**
 * The modules a built file imports: the end of each import or export statement (`… from 'x'`, a
 * line of its own or the last line of a multi-line one), bare `import 'x'`, and `import("x")` types;
 * not the examples in doc comments (their lines start with `*`).
 */
function importedModules(text: string): string[] {
  const modules: string[] = [];
  for (const line of text.split('\n')) {
    const statement = line.trim();
    const from = statement.lastIndexOf(' from ');
    if (['import ', 'export ', '} '].some((start) => statement.startsWith(start)) && from !== -1) {
      modules.push(unquote(statement.slice(from + ' from '.length).trim()));
    } else if (statement.startsWith("import '") || statement.startsWith('import "')) {
      modules.push(unquote(statement.slice('import '.length)));
    }
    for (let at = line.indexOf('import('); at !== -1; at = line.indexOf('import(', at + 1)) {
      modules.push(unquote(line.slice(at + 'import('.length).trim()));
    }
  }
  return modules;
}

// Nothing in the package may import what is not its dependency (a server module, a driver, zod).
for (const file of ENTRIES.flatMap((entry) => [`${entry}.js`, `${entry}.d.ts`]).concat('base-url.js')) {
  for (const name of importedModules(await readFile(path.join(dist, file), 'utf8'))) {
    if (name === './base-url.js') continue;
    if (!ALLOWED_IMPORTS.has(name)) throw new Error(`client/dist/${file} imports ${name}`);
  }
}
console.log(`built client/dist (${ENTRIES.map((entry) => `${entry}.js, ${entry}.d.ts`).join(', ')})`);
