import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from './helpers/http-client.ts';
import { childEnv, projectRoot } from './helpers/processes.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * The service as its integrators use it, from projects of their own: the package
 * @deck-service/client packed (`npm pack` of client/) and installed from its tarball into a project
 * outside this repository, compiled there with `strict` and `skipLibCheck: false` and run; and a
 * REST client generated from `/api/openapi.json` by openapi-typescript, calling through openapi-fetch.
 * All speak to the running service with an API key.
 */
const run = promisify(execFile);
const MISSING = '00000000-0000-4000-8000-000000000000';
const clientDir = path.join(projectRoot, 'client');
/** What installing the package may bring: the client libraries, and TypeScript (a peer of @trpc/client). */
const CLIENT_LIBRARIES = ['@trpc/client', '@trpc/server', 'openapi-fetch', 'openapi-typescript-helpers'];

let t: TestApp;
let owner: HttpClient & { organizationId: string };
let apiKey: string;
const dirs: string[] = [];

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.signedInClient();
  const created = await owner.post('/api/api-keys', { name: 'Integration', access: 'write' });
  expect(created.status, created.text).toBe(201);
  apiKey = created.body.secret;
}, 60_000);
afterAll(async () => {
  await t?.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A project folder of its own, outside this repository, with `files` written into it. */
async function project(files: Record<string, string>, links: Record<string, string> = {}) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'deck-consumer-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  for (const [name, target] of Object.entries(links)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await symlink(target, path.join(dir, name), 'dir');
  }
  return dir;
}

async function command(file: string, args: string[], options: { cwd: string; env?: Record<string, string> }) {
  const { stdout } = await run(file, args, {
    cwd: options.cwd,
    env: childEnv(options.env ?? {}),
    timeout: 240_000,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(
      `${file} ${args.join(' ')} failed:\n${error.stdout ?? ''}\n${error.stderr ?? error.message}`,
    );
  });
  return stdout;
}

const node = (args: string[], options: { cwd: string; env?: Record<string, string> }) =>
  command(process.execPath, args, options);

const consumerTsconfig = (include: string[], skipLibCheck: boolean) =>
  JSON.stringify({
    compilerOptions: {
      target: 'es2022',
      lib: ['es2022', 'dom'],
      module: 'nodenext',
      moduleResolution: 'nodenext',
      strict: true,
      skipLibCheck,
      types: [],
      outDir: 'out',
    },
    include,
  });

/** Every package installed under `node_modules`, by name (scoped ones as `@scope/name`). */
async function installedPackages(nodeModules: string): Promise<string[]> {
  const names: string[] = [];
  for (const entry of await readdir(nodeModules)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) {
      for (const inner of await readdir(path.join(nodeModules, entry))) names.push(`${entry}/${inner}`);
    } else names.push(entry);
  }
  return names.sort();
}

async function sizeOf(target: string): Promise<number> {
  const info = await stat(target);
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const entry of await readdir(target)) total += await sizeOf(path.join(target, entry));
  return total;
}

describe('@deck-service/client (the TypeScript client package)', () => {
  let tarball: string;
  let consumer: string;

  beforeAll(async () => {
    await node(['scripts/build-client.ts'], { cwd: projectRoot });
    const packed = await project({});
    const [name] = JSON.parse(
      await command('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', packed], {
        cwd: clientDir,
      }),
    ).map((entry: { filename: string }) => entry.filename);
    tarball = path.join(packed, name);
  }, 240_000);

  it('packs its built output only, and depends on client libraries only', async () => {
    const manifest = JSON.parse(await readFile(path.join(clientDir, 'package.json'), 'utf8'));
    expect(manifest.private).toBeUndefined();
    expect(Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).sort()).toEqual([
      '@trpc/client',
      '@trpc/server',
      'openapi-fetch',
    ]);
    const listing = await command('tar', ['-tzf', tarball], { cwd: projectRoot });
    expect(listing.trim().split('\n').sort()).toEqual([
      'package/README.md',
      'package/dist/base-url.js',
      'package/dist/index.d.ts',
      'package/dist/index.js',
      'package/dist/rest.d.ts',
      'package/dist/rest.js',
      'package/package.json',
    ]);
    // 17.5 kB when this was written; the server's package was 527 MB installed.
    expect((await stat(tarball)).size).toBeLessThan(100_000);
    // No server module, driver or zod named by the declarations.
    for (const file of ['index.d.ts', 'rest.d.ts']) {
      const text = await readFile(path.join(clientDir, 'dist', file), 'utf8');
      // rollup writes each import and re-export on one line, ending in `from '<module>';`.
      const imported = text
        .split('\n')
        .filter((line) => line.startsWith('import ') || line.startsWith('export '))
        .map((line) => line.split(' from ')[1])
        .filter((name) => name !== undefined)
        .map((name) => name.slice(1, name.indexOf("'", 1)));
      expect(imported.length).toBeGreaterThan(0);
      // (tRPC's subscription types come from its core subpath, as @trpc/client's own do.)
      const allowed = [...CLIENT_LIBRARIES, '@trpc/server/unstable-core-do-not-import'];
      expect(
        imported.every((name) => allowed.includes(name)),
        `${file}: ${imported}`,
      ).toBe(true);
      expect(text).not.toContain('import(');
    }
  });

  it('installs from its tarball, compiles strict without skipLibCheck, and works against the live service', async () => {
    consumer = await project({
      // An integrator's project brings its own TypeScript, which @trpc/client's peer then is.
      'package.json': JSON.stringify({
        name: 'consumer',
        private: true,
        type: 'module',
        // …and, for subscriptions in Node, an EventSource that takes a fetch (for the key's header).
        devDependencies: { typescript: '5.9.3', eventsource: '4.1.1' },
      }),
      'tsconfig.json': consumerTsconfig(['main.ts'], false),
      'main.ts': `import { createDeckClient, TRPCClientError, type RouterInputs, type RouterOutputs } from '@deck-service/client';
import { createDeckRestClient, type Schema } from '@deck-service/client/rest';
import { EventSource } from 'eventsource';

declare const process: { env: Record<string, string | undefined> };
const options = { baseUrl: process.env.DECK_URL!, apiKey: process.env.DECK_API_KEY! };

// A subscription: the event log, live, typed (splitLink sends it over SSE, the rest batched).
const live = createDeckClient({ ...options, EventSource });
type Streamed = RouterOutputs['events']['onEvent'] extends AsyncIterable<infer E> ? E : never;
const arrived: Streamed[] = [];
let opened: () => void = () => {};
const started = new Promise<void>((resolve) => (opened = resolve));
const subscription = live.events.onEvent.subscribe(
  { eventType: 'deck.created' },
  { onStarted: () => opened(), onData: (event) => arrived.push(event) },
);
await started;

// tRPC
const client = createDeckClient(options);
const me = await client.auth.getCurrentUser.query();
const input: RouterInputs['decks']['createDeck'] = { name: 'Typed from afar' };
const deck: RouterOutputs['decks']['createDeck'] = await client.decks.createDeck.mutate(input);
// Two calls at once go out as one batched request.
const [listed, fetched] = await Promise.all([
  client.decks.listDecks.query(),
  client.decks.getDeck.query({ deckId: deck.id }),
]);
let missing: string | undefined;
try {
  await client.decks.getDeck.query({ deckId: '${MISSING}' });
} catch (error) {
  if (error instanceof TRPCClientError) missing = error.data?.code;
}
export function neverCalled() {
  // @ts-expect-error a deck's name is a string: the client's types are the router's
  return client.decks.createDeck.mutate({ name: 42 });
}
export function notOverHttp() {
  // @ts-expect-error the operators' procedures are in-process only: not in the client's types
  return client.admin.createUser.mutate({ organization: 'X', email: 'x@example.com', password: 'p' });
}

// REST
const api = createDeckRestClient(options);
const created = await api.POST('/decks', { body: { name: 'Over REST' } });
if (!created.data) throw new Error(\`create failed: \${created.response.status}\`);
const restMissing = await api.GET('/decks/{deckId}', { params: { path: { deckId: '${MISSING}' } } });
const problem: Schema<'Problem'> | undefined = restMissing.error;
export function neverSent() {
  // @ts-expect-error the document's paths only
  return api.GET('/no-such-route');
}

const liveDeck = await live.decks.createDeck.mutate({ name: 'Followed' });
while (!arrived.some((event) => event.data.aggregateId === liveDeck.id)) await new Promise((r) => setTimeout(r, 20));
subscription.unsubscribe();
export function wrongFilter() {
  // @ts-expect-error the filter's fields are the procedure's
  return live.events.onEvent.subscribe({ nonsense: 1 }, {});
}

console.log(
  JSON.stringify({
    live: arrived.map((event) => [event.data.eventType, event.id === event.data.id]),
    organization: me.organization.id,
    id: deck.id,
    name: fetched.name,
    listed: listed.decks.map((d) => d.name).sort(),
    missing,
    rest: { name: created.data.name, status: restMissing.response.status, code: problem?.code },
  }),
);
`,
    });
    await command(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball],
      {
        cwd: consumer,
      },
    );
    const installed = await installedPackages(path.join(consumer, 'node_modules'));
    const beyondTypeScript = installed.filter(
      (name) => name !== 'typescript' && !name.startsWith('@typescript/'),
    );
    expect(beyondTypeScript).toEqual(
      ['@deck-service/client', ...CLIENT_LIBRARIES, 'eventsource', 'eventsource-parser'].sort(),
    );
    const tree = await sizeOf(path.join(consumer, 'node_modules'));
    const typescript = await sizeOf(path.join(consumer, 'node_modules/typescript'));
    console.log(`installed: ${installed.join(', ')}; ${tree} bytes, of which TypeScript ${typescript}`);

    await node([path.join(consumer, 'node_modules/typescript/bin/tsc'), '-p', consumer], { cwd: consumer });
    const output = JSON.parse(
      await node([path.join(consumer, 'out/main.js')], {
        cwd: consumer,
        env: { DECK_URL: t.url, DECK_API_KEY: apiKey },
      }),
    );
    expect(output).toEqual({
      live: [
        ['deck.created', true],
        ['deck.created', true],
        ['deck.created', true],
      ],
      organization: owner.organizationId,
      id: expect.any(String),
      name: 'Typed from afar',
      listed: ['Typed from afar'],
      missing: 'NOT_FOUND',
      rest: { name: 'Over REST', status: 404, code: 'NOT_FOUND' },
    });
    // It is the service's deck, in the key's organization.
    expect((await owner.get(`/api/decks/${output.id}`)).body.name).toBe('Typed from afar');
  }, 240_000);

  it('refuses to compile a call the router does not have', async () => {
    await writeFile(
      path.join(consumer, 'wrong.ts'),
      `import { createDeckClient } from '@deck-service/client';
const client = createDeckClient({ baseUrl: 'http://localhost', apiKey: 'dk_x' });
export const wrong = client.decks.renameEverything.mutate({});
`,
    );
    await writeFile(path.join(consumer, 'tsconfig.wrong.json'), consumerTsconfig(['wrong.ts'], false));
    const failure = await node(
      [
        path.join(consumer, 'node_modules/typescript/bin/tsc'),
        '-p',
        path.join(consumer, 'tsconfig.wrong.json'),
      ],
      { cwd: consumer },
    ).catch((error: Error) => error.message);
    expect(failure).toMatch(/wrong.ts.*renameEverything/);
  }, 120_000);
});

describe('a REST client generated from the OpenAPI document (openapi-typescript + openapi-fetch)', () => {
  it('calls several operations with an API key, an error answer included', async () => {
    const tools = path.join(projectRoot, 'test/rest-client/node_modules');
    const dir = await project(
      {
        'package.json': JSON.stringify({ name: 'rest-consumer', private: true, type: 'module' }),
        'tsconfig.json': consumerTsconfig(['*.ts'], false),
        'main.ts': `import createClient from 'openapi-fetch';
import type { paths } from './api.ts';

declare const process: { env: Record<string, string | undefined> };

const api = createClient<paths>({
  // The document's paths are relative to its server, /api.
  baseUrl: \`\${process.env.DECK_URL}/api\`,
  headers: { authorization: \`Bearer \${process.env.DECK_API_KEY}\` },
});
const created = await api.POST('/decks', { body: { name: 'Over REST' } });
if (!created.data) throw new Error(\`create failed: \${created.response.status}\`);
const slide = await api.POST('/decks/{deckId}/slides', {
  params: { path: { deckId: created.data.id } },
  body: { title: 'First' },
});
const slides = await api.GET('/decks/{deckId}/slides', { params: { path: { deckId: created.data.id } } });
const missing = await api.GET('/decks/{deckId}', { params: { path: { deckId: '${MISSING}' } } });
const invalid = await api.POST('/decks', { body: { name: '' } });
console.log(
  JSON.stringify({
    deck: created.data.name,
    slideStatus: slide.response.status,
    slides: slides.data?.slides.map((s) => s.title),
    missing: { status: missing.response.status, code: missing.error?.code },
    invalid: { status: invalid.response.status, code: invalid.error?.code },
  }),
);
`,
      },
      { node_modules: tools },
    );
    await node(
      [
        path.join(tools, 'openapi-typescript/bin/cli.js'),
        `${t.url}/api/openapi.json`,
        '-o',
        path.join(dir, 'api.ts'),
      ],
      { cwd: dir },
    );
    await node([path.join(tools, 'typescript/bin/tsc'), '-p', dir], { cwd: dir });
    const output = JSON.parse(
      await node([path.join(dir, 'out/main.js')], {
        cwd: dir,
        env: { DECK_URL: t.url, DECK_API_KEY: apiKey },
      }),
    );
    expect(output).toEqual({
      deck: 'Over REST',
      slideStatus: 201,
      slides: ['First'],
      missing: { status: 404, code: 'NOT_FOUND' },
      invalid: { status: 400, code: 'BAD_REQUEST' },
    });
  }, 180_000);
});
