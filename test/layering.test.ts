import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The layering rules of biome.json and its plugins in lint/ (run by `npm run lint` in
 * `npm test`) are only worth something if they fire: this lints probe files, each breaking or
 * keeping one rule, with the project's own configuration in a scratch folder, and checks which
 * ones are reported.
 */
const root = path.resolve(import.meta.dirname, '..');
const biome = path.join(root, 'node_modules', '.bin', 'biome');

const probes: Record<string, string> = {
  // Broken rules.
  'domain/imports-routers.ts': "import { router } from '../routers/trpc.ts';\nexport const x = router;\n",
  'domain/imports-rest.ts': "import { problem } from '../rest/problem.ts';\nexport const x = problem;\n",
  'domain/imports-koa.ts': "import type { Context } from 'koa';\nexport type X = Context;\n",
  'domain/imports-trpc.ts': "import { initTRPC } from '@trpc/server';\nexport const x = initTRPC;\n",
  'server/worker-imports-routers.ts':
    "import { appRouter } from '../routers/app-router.ts';\nexport const x = appRouter;\n",
  'routers/decks/makes-trpc-error.ts':
    "import { TRPCError } from '@trpc/server';\nexport const e = new TRPCError({ code: 'NOT_FOUND' });\n",
  'rest/makes-trpc-error.ts':
    "import { TRPCError } from '@trpc/server';\nexport const e = new TRPCError({ code: 'CONFLICT' });\n",
  'rest/literal-getter.ts': 'export const state = (id: string) => ({ get id() { return id; } });\n',
  'server/defined-getter.ts':
    "export const state = (o: object, id: string) => Object.defineProperty(o, 'id', { get: () => id });\n",
  'rest/literal-setter.ts':
    'export const state = (o: { id: string }) => ({ set id(v: string) { o.id = v; } });\n',
  'server/reflect-getter.ts':
    "export const state = (o: object, id: string) => Reflect.defineProperty(o, 'id', { get() { return id; } });\n",
  // Kept rules: these must not be reported.
  'rest/defined-looked-up-value.ts':
    "export const state = (o: object, m: Map<string, number>) => Object.defineProperty(o, 'id', { value: m.get('id') });\n",
  'server/class-getter.ts': 'export class State {\n  get id() {\n    return 1;\n  }\n}\n',
  'domain/defined-value.ts':
    "export const state = (o: object) => Object.defineProperty(o, 'id', { value: 1, enumerable: true });\n",
  'domain/imports-entities.ts': "import { Deck } from '../entities/Deck.ts';\nexport const x = Deck;\n",
  'routers/errors.ts':
    "import { TRPCError } from '@trpc/server';\nexport const e = new TRPCError({ code: 'NOT_FOUND' });\n",
  'server/app.ts': "import { appRouter } from '../routers/app-router.ts';\nexport const x = appRouter;\n",
  'rest/uses-routers.ts':
    "import { appRouter } from '../routers/app-router.ts';\nexport const x = appRouter;\n",
};

let scratch: string;
let reported: Map<string, string[]>;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'layering-'));
  const config = JSON.parse(await readFile(path.join(root, 'biome.json'), 'utf8'));
  delete config.$schema;
  await writeFile(path.join(scratch, 'biome.json'), JSON.stringify(config));
  await cp(path.join(root, 'lint'), path.join(scratch, 'lint'), { recursive: true });
  for (const [file, source] of Object.entries(probes)) {
    await mkdir(path.dirname(path.join(scratch, file)), { recursive: true });
    await writeFile(path.join(scratch, file), source);
  }
  const { stdout } = await promisify(execFile)(biome, ['lint', '--reporter=json', '.'], {
    cwd: scratch,
  }).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
  const diagnostics = JSON.parse(stdout).diagnostics as {
    category: string;
    location: { path: string };
  }[];
  reported = new Map();
  for (const d of diagnostics) {
    reported.set(d.location.path, [...(reported.get(d.location.path) ?? []), d.category]);
  }
}, 60_000);

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('layering lint', () => {
  it.each([
    ['domain/imports-routers.ts', 'lint/style/noRestrictedImports'],
    ['domain/imports-rest.ts', 'lint/style/noRestrictedImports'],
    ['domain/imports-koa.ts', 'lint/style/noRestrictedImports'],
    ['domain/imports-trpc.ts', 'lint/style/noRestrictedImports'],
    ['server/worker-imports-routers.ts', 'lint/style/noRestrictedImports'],
    ['routers/decks/makes-trpc-error.ts', 'plugin'],
    ['rest/makes-trpc-error.ts', 'plugin'],
    ['rest/literal-getter.ts', 'plugin'],
    ['server/defined-getter.ts', 'plugin'],
    ['rest/literal-setter.ts', 'plugin'],
    ['server/reflect-getter.ts', 'plugin'],
  ])('reports %s', (file, category) => {
    expect(reported.get(file)).toContain(category);
  });

  it.each([
    'domain/imports-entities.ts',
    'routers/errors.ts',
    'server/app.ts',
    'rest/uses-routers.ts',
    'server/class-getter.ts',
    'domain/defined-value.ts',
    'rest/defined-looked-up-value.ts',
  ])('allows %s', (file) => {
    expect(reported.get(file)).toBeUndefined();
  });
});
