import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from './helpers/http-client.ts';
import { childEnv, projectRoot } from './helpers/processes.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * Clients that tools nobody here wrote generate from the document the service serves
 * (`/api/openapi.json`): @hey-api/openapi-ts and orval, each in a project of its own (the tools are
 * installed in test/rest-client by the pretest step). Each client compiles with `strict` and
 * `skipLibCheck: false` and runs one integrator's sequence against the live service: signed in with
 * an API key, it creates a deck and a product pricing slide (a tier at 19.99), reads the slide's
 * product data back, and gets a typed 404 for a missing deck.
 */
const run = promisify(execFile);
const tools = path.join(projectRoot, 'test/rest-client/node_modules');
const MISSING = '00000000-0000-4000-8000-000000000000';

let t: TestApp;
let owner: HttpClient & { organizationId: string };
let apiKey: string;
let document: string;
const dirs: string[] = [];

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.signedInClient();
  const created = await owner.post('/api/api-keys', { name: 'Generated clients', access: 'write' });
  expect(created.status, created.text).toBe(201);
  apiKey = created.body.secret;
  const served = await owner.get('/api/openapi.json');
  expect(served.status).toBe(200);
  document = served.text;
}, 60_000);
afterAll(async () => {
  await t?.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function node(args: string[], cwd: string, env: Record<string, string> = {}) {
  const { stdout } = await run(process.execPath, args, { cwd, env: childEnv(env), timeout: 180_000 }).catch(
    (error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`${args.join(' ')} failed:\n${error.stdout ?? ''}\n${error.stderr ?? error.message}`);
    },
  );
  return stdout;
}

/** A project of its own, with the document as the service served it and the tools' node_modules. */
async function project(files: Record<string, string>) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'deck-generated-'));
  dirs.push(dir);
  await writeFile(path.join(dir, 'openapi.json'), document);
  await writeFile(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'generated', private: true, type: 'module' }),
  );
  await writeFile(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        lib: ['es2022', 'dom', 'dom.iterable'],
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        skipLibCheck: false,
        types: [],
        outDir: 'out',
      },
      include: ['**/*.ts'],
      exclude: ['node_modules', 'out'],
    }),
  );
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  await symlink(tools, path.join(dir, 'node_modules'), 'dir');
  return dir;
}

/** Compiles the project with TypeScript 5 and runs its main.js against the live service. */
async function compileAndRun(dir: string) {
  await node([path.join(tools, 'typescript/bin/tsc'), '-p', dir], dir);
  return JSON.parse(
    await node([path.join(dir, 'out/main.js')], dir, { DECK_URL: t.url, DECK_API_KEY: apiKey }),
  );
}

/** A tier as the integrator writes it. */
const TIER = `{ name: 'Pro', price: 19.99, currency: 'USD', billingPeriod: 'month', features: ['Support'] }`;

/** What each sequence prints, and what the service holds afterwards. */
async function expectSequence(output: Record<string, unknown>) {
  expect(output).toEqual({
    organization: owner.organizationId,
    deck: 'Generated',
    deckId: expect.any(String),
    slideStatus: 201,
    price: 19.99,
    missing: { status: 404, code: 'NOT_FOUND' },
  });
  const slides = (await owner.get(`/api/decks/${output.deckId}/slides`)).body.slides;
  expect(
    slides.map((slide: { productData: { good: { price: number } } }) => slide.productData.good.price),
  ).toEqual([19.99]);
}

describe('clients generated from the OpenAPI document', () => {
  it('@hey-api/openapi-ts (fetch client): compiles strict and runs the sequence', async () => {
    const dir = await project({
      'main.ts': `import { createClient } from './client/client/index.js';
import { authGetCurrentUser, decksCreateDeck, decksGetDeck, slidesCreateSlide, slidesGetProductData } from './client/index.js';
import type { PricingTier, Problem } from './client/index.js';

declare const process: { env: Record<string, string | undefined> };

const client = createClient({
  baseUrl: \`\${process.env.DECK_URL}/api\`,
  headers: { authorization: \`Bearer \${process.env.DECK_API_KEY}\` },
});
const me = await authGetCurrentUser({ client, throwOnError: true });
const deck = await decksCreateDeck({ client, body: { name: 'Generated' }, throwOnError: true });
const tier: PricingTier = ${TIER};
const slide = await slidesCreateSlide({
  client,
  path: { deckId: deck.data.id },
  body: {
    title: 'Pricing',
    slideType: 'product_pricing_v1',
    productData: { good: tier, better: { ...tier, price: 29.99 }, best: { ...tier, price: 49.99 } },
  },
  throwOnError: true,
});
const productData = await slidesGetProductData({ client, path: { slideId: slide.data.id }, throwOnError: true });
const missing = await decksGetDeck({ client, path: { deckId: '${MISSING}' } });
const problem: Problem | undefined = missing.error;
console.log(
  JSON.stringify({
    organization: me.data.organization.id,
    deck: deck.data.name,
    deckId: deck.data.id,
    slideStatus: slide.response.status,
    price: productData.data.productData.good.price,
    missing: { status: missing.response?.status, code: problem?.code },
  }),
);
`,
    });
    await node(
      [
        path.join(tools, '@hey-api/openapi-ts/bin/run.js'),
        '-i',
        'openapi.json',
        '-o',
        'client',
        '-c',
        '@hey-api/client-fetch',
      ],
      dir,
    );
    await expectSequence(await compileAndRun(dir));
  }, 240_000);

  it('orval (fetch client): compiles strict and runs the sequence', async () => {
    const dir = await project({
      // The document's server is relative (/api), which orval does not apply: the base address is
      // given here, as an integrator would for their deployment.
      'orval.config.mjs': `export default {
  deck: {
    input: { target: './openapi.json' },
    output: { target: './api/deck.ts', client: 'fetch', mode: 'single', baseUrl: process.env.DECK_API_BASE },
  },
};
`,
      'main.ts': `import { authGetCurrentUser, decksCreateDeck, decksGetDeck, slidesCreateSlide, slidesGetProductData } from './api/deck.js';
import type { PricingTier } from './api/deck.js';

declare const process: { env: Record<string, string | undefined> };

const options = { headers: { authorization: \`Bearer \${process.env.DECK_API_KEY}\` } };
const me = await authGetCurrentUser(options);
if (me.status !== 200) throw new Error(\`me: \${me.status}\`);
const deck = await decksCreateDeck({ name: 'Generated' }, options);
if (deck.status !== 201) throw new Error(\`deck: \${deck.status}\`);
const tier: PricingTier = ${TIER};
const slide = await slidesCreateSlide(
  deck.data.id,
  {
    title: 'Pricing',
    slideType: 'product_pricing_v1',
    productData: { good: tier, better: { ...tier, price: 29.99 }, best: { ...tier, price: 49.99 } },
  },
  options,
);
if (slide.status !== 201) throw new Error(\`slide: \${slide.status}\`);
const productData = await slidesGetProductData(slide.data.id, options);
if (productData.status !== 200) throw new Error(\`product data: \${productData.status}\`);
const missing = await decksGetDeck('${MISSING}', options);
// The 404's body is typed as the document's problem details.
const code = missing.status === 404 ? missing.data.code : undefined;
console.log(
  JSON.stringify({
    organization: me.data.organization.id,
    deck: deck.data.name,
    deckId: deck.data.id,
    slideStatus: slide.status,
    price: productData.data.productData.good.price,
    missing: { status: missing.status, code },
  }),
);
`,
    });
    await node([path.join(tools, 'orval/dist/bin/orval.mjs'), '--config', 'orval.config.mjs'], dir, {
      DECK_API_BASE: `${t.url}/api`,
    });
    await expectSequence(await compileAndRun(dir));
  }, 240_000);
});
