import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from './helpers/http-client.ts';
import { childEnv, projectRoot } from './helpers/processes.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * The service as its integrators use it, from projects of their own: a TypeScript project that
 * imports only `deck-service/client` (built, then compiled with tsc and run), and a REST client
 * generated from `/api/openapi.json` by openapi-typescript, calling through openapi-fetch. Both
 * speak to the running service with an API key.
 */
const run = promisify(execFile);
const MISSING = '00000000-0000-4000-8000-000000000000';

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
async function project(files: Record<string, string>, links: Record<string, string>) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'deck-consumer-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  for (const [name, target] of Object.entries(links)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await symlink(target, path.join(dir, name), 'dir');
  }
  return dir;
}

async function node(args: string[], options: { cwd: string; env?: Record<string, string> }) {
  const { stdout } = await run(process.execPath, args, {
    cwd: options.cwd,
    env: childEnv(options.env ?? {}),
    timeout: 120_000,
  }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(`${args.join(' ')} failed:\n${error.stdout ?? ''}\n${error.stderr ?? error.message}`);
  });
  return stdout;
}

const consumerTsconfig = JSON.stringify({
  compilerOptions: {
    target: 'es2022',
    lib: ['es2022', 'dom'],
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    skipLibCheck: true,
    types: [],
    outDir: 'out',
  },
  include: ['*.ts'],
});

describe('deck-service/client (the TypeScript client package)', () => {
  it('compiles in a project that imports only the package entry, and works against the live service', async () => {
    await node(['scripts/build-client.ts'], { cwd: projectRoot });
    const dir = await project(
      {
        'package.json': JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
        'tsconfig.json': consumerTsconfig,
        'main.ts': `import { createDeckClient, TRPCClientError, type RouterInputs, type RouterOutputs } from 'deck-service/client';

declare const process: { env: Record<string, string | undefined> };

const client = createDeckClient({ baseUrl: process.env.DECK_URL!, apiKey: process.env.DECK_API_KEY! });
const input: RouterInputs['decks']['createDeck'] = { name: 'Typed from afar' };
const deck: RouterOutputs['decks']['createDeck'] = await client.decks.createDeck.mutate(input);
// Two calls at once go out as one batched request.
const [listed, fetched] = await Promise.all([
  client.decks.listDecks.query({}),
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
console.log(JSON.stringify({ id: deck.id, name: fetched.name, listed: listed.decks.map((d) => d.id), missing }));
`,
      },
      { 'node_modules/deck-service': projectRoot },
    );
    await node([path.join(projectRoot, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir });
    const output = JSON.parse(
      await node([path.join(dir, 'out/main.js')], {
        cwd: dir,
        env: { DECK_URL: t.url, DECK_API_KEY: apiKey },
      }),
    );
    expect(output).toEqual({
      id: expect.any(String),
      name: 'Typed from afar',
      listed: [output.id],
      missing: 'NOT_FOUND',
    });
    // It is the service's deck, in the key's organization.
    expect((await owner.get(`/api/decks/${output.id}`)).body.name).toBe('Typed from afar');
  }, 180_000);

  it('refuses to compile a call the router does not have', async () => {
    const dir = await project(
      {
        'package.json': JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
        'tsconfig.json': consumerTsconfig,
        'main.ts': `import { createDeckClient } from 'deck-service/client';
const client = createDeckClient({ baseUrl: 'http://localhost', apiKey: 'dk_x' });
export const wrong = client.decks.renameEverything.mutate({});
`,
      },
      { 'node_modules/deck-service': projectRoot },
    );
    const failure = await node([path.join(projectRoot, 'node_modules/typescript/bin/tsc'), '-p', dir], {
      cwd: dir,
    }).catch((error: Error) => error.message);
    expect(failure).toMatch(/renameEverything/);
  }, 120_000);
});

describe('a REST client generated from the OpenAPI document (openapi-typescript + openapi-fetch)', () => {
  it('calls several operations with an API key, an error answer included', async () => {
    const tools = path.join(projectRoot, 'test/rest-client/node_modules');
    const dir = await project(
      {
        'package.json': JSON.stringify({ name: 'rest-consumer', private: true, type: 'module' }),
        'tsconfig.json': consumerTsconfig,
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
