import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The layer rules (.dependency-cruiser.cjs, `npm run lint:layers`) and the lint plugins (lint/,
 * biome.json) run in `npm test`, and are only worth something if they fire: this checks probe
 * files, each breaking or keeping one rule, with the project's own configuration in a scratch
 * folder, and which ones are reported.
 */
const root = path.resolve(import.meta.dirname, '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);
const run = promisify(execFile);

/** A module to import in each layer (the probes import these, not the real code). */
const targets: Record<string, string> = {
  'entities/Deck.ts': 'export class Deck {}\n',
  'domain/rules.ts': 'export const rule = 1;\n',
  'domain/ports/storage.ts': 'export interface Storage { put(): void }\n',
  'routers/trpc.ts': 'export const router = 1;\n',
  'rest/problem.ts': 'export const problem = 1;\n',
  'adapters/storage.ts': 'export const storage = 1;\n',
  'app/config.ts': 'export const config = 1;\n',
  // The other half of the cycle cycle-a.ts starts (a cycle is reported once, from where it is entered).
  'domain/cycle-b.ts': "import type { A } from './cycle-a.ts';\nexport type B = A | 2;\n",
};
const imports = (from: string, to: string) => {
  const specifier = path.posix.relative(path.posix.dirname(from), to);
  return `import * as target from '${specifier.startsWith('.') ? specifier : `./${specifier}`}';\nexport const x = target;\n`;
};
const npm = (name: string) => `import * as target from '${name}';\nexport const x = target;\n`;

/** Probe → the rule it must break. */
const breaking: Record<string, [source: string, rule: string]> = {
  'entities/imports-domain.ts': [
    imports('entities/imports-domain.ts', 'domain/rules.ts'),
    'entities-import-nothing-above',
  ],
  'entities/imports-routers.ts': [
    imports('entities/imports-routers.ts', 'routers/trpc.ts'),
    'entities-import-nothing-above',
  ],
  'domain/imports-routers.ts': [
    imports('domain/imports-routers.ts', 'routers/trpc.ts'),
    'domain-imports-entities-only',
  ],
  'domain/imports-rest.ts': [
    imports('domain/imports-rest.ts', 'rest/problem.ts'),
    'domain-imports-entities-only',
  ],
  'domain/imports-adapters.ts': [
    imports('domain/imports-adapters.ts', 'adapters/storage.ts'),
    'domain-imports-entities-only',
  ],
  'domain/imports-app.ts': [
    imports('domain/imports-app.ts', 'app/config.ts'),
    'domain-imports-entities-only',
  ],
  'domain/imports-koa.ts': [npm('koa'), 'domain-knows-no-transport'],
  'domain/imports-trpc.ts': [npm('@trpc/server'), 'domain-knows-no-transport'],
  'routers/imports-rest.ts': [
    imports('routers/imports-rest.ts', 'rest/problem.ts'),
    'routers-import-domain-only',
  ],
  'routers/imports-adapters.ts': [
    imports('routers/imports-adapters.ts', 'adapters/storage.ts'),
    'routers-import-domain-only',
  ],
  'routers/imports-koa.ts': [npm('koa'), 'routers-import-domain-only'],
  'rest/imports-app.ts': [imports('rest/imports-app.ts', 'app/config.ts'), 'rest-imports-no-composition'],
  'rest/imports-adapters.ts': [
    imports('rest/imports-adapters.ts', 'adapters/storage.ts'),
    'rest-imports-no-composition',
  ],
  'adapters/imports-rest.ts': [
    imports('adapters/imports-rest.ts', 'rest/problem.ts'),
    'adapters-import-domain-only',
  ],
  'adapters/imports-routers.ts': [
    imports('adapters/imports-routers.ts', 'routers/trpc.ts'),
    'adapters-import-domain-only',
  ],
  'adapters/imports-app.ts': [
    imports('adapters/imports-app.ts', 'app/config.ts'),
    'adapters-import-domain-only',
  ],
  // The contract analysis is pure: no files, threads or document readers.
  ...Object.fromEntries(
    ['node:fs', 'node:worker_threads', 'pdfjs-dist', 'officeparser'].map((name) => [
      `domain/contracts/analysis/imports-${name.replace(':', '-')}.ts`,
      [npm(name), 'contract-analysis-is-pure'] as [string, string],
    ]),
  ),
  'domain/cycle-a.ts': ["import type { B } from './cycle-b.ts';\nexport type A = B | 1;\n", 'no-circular'],
  'rest/trpc-internals.ts': [npm('@trpc/server/unstable-core-do-not-import'), 'no-trpc-internals'],
};

/** Probes that keep every rule. */
const keeping: Record<string, string> = {
  'domain/imports-entities.ts': imports('domain/imports-entities.ts', 'entities/Deck.ts'),
  'domain/imports-zod.ts': npm('zod'),
  // The analysis reads dates with chrono-node: a pure library.
  'domain/contracts/analysis/imports-chrono.ts': npm('chrono-node/en'),
  'routers/imports-domain.ts': imports('routers/imports-domain.ts', 'domain/rules.ts'),
  'routers/imports-trpc.ts': npm('@trpc/server'),
  'rest/imports-routers.ts': imports('rest/imports-routers.ts', 'routers/trpc.ts'),
  'rest/imports-koa.ts': npm('koa'),
  'adapters/imports-port.ts': imports('adapters/imports-port.ts', 'domain/ports/storage.ts'),
  'app/imports-rest.ts': imports('app/imports-rest.ts', 'rest/problem.ts'),
  'app/imports-adapters.ts': imports('app/imports-adapters.ts', 'adapters/storage.ts'),
};

/** Lint plugin probes (biome): file → whether the plugin reports it. */
const linted: Record<string, [source: string, reported: boolean]> = {
  'routers/decks/makes-trpc-error.ts': [
    "import { TRPCError } from '@trpc/server';\nexport const e = new TRPCError({ code: 'NOT_FOUND' });\n",
    true,
  ],
  'rest/makes-trpc-error.ts': [
    "import { TRPCError } from '@trpc/server';\nexport const e = new TRPCError({ code: 'CONFLICT' });\n",
    true,
  ],
  'rest/renamed-trpc-error.ts': [
    "import { TRPCError as Failure } from '@trpc/server';\nexport const e = new Failure({ code: 'CONFLICT' });\n",
    true,
  ],
  'rest/namespaced-trpc-error.ts': [
    "import * as trpc from '@trpc/server';\nexport const e = new trpc.TRPCError({ code: 'CONFLICT' });\n",
    true,
  ],
  'rest/literal-getter.ts': ['export const state = (id: string) => ({ get id() { return id; } });\n', true],
  'rest/defined-getter.ts': [
    "export const state = (o: object, id: string) => Object.defineProperty(o, 'id', { get: () => id });\n",
    true,
  ],
  'rest/literal-setter.ts': [
    'export const state = (o: { id: string }) => ({ set id(v: string) { o.id = v; } });\n',
    true,
  ],
  'rest/reflect-getter.ts': [
    "export const state = (o: object, id: string) => Reflect.defineProperty(o, 'id', { get() { return id; } });\n",
    true,
  ],
  // Kept.
  'routers/errors.ts': [
    "import { TRPCError } from '@trpc/server';\nexport const e = new TRPCError({ code: 'NOT_FOUND' });\n",
    false,
  ],
  'routers/type-of-trpc-error.ts': [
    "import { initTRPC, type TRPCError } from '@trpc/server';\nexport type E = TRPCError;\nexport const t = initTRPC;\n",
    false,
  ],
  'rest/defined-looked-up-value.ts': [
    "export const state = (o: object, m: Map<string, number>) => Object.defineProperty(o, 'id', { value: m.get('id') });\n",
    false,
  ],
  'app/class-getter.ts': ['export class State {\n  get id() {\n    return 1;\n  }\n}\n', false],
  'domain/defined-value.ts': [
    "export const state = (o: object) => Object.defineProperty(o, 'id', { value: 1, enumerable: true });\n",
    false,
  ],
};

let scratch: string;
let violations: { from: string; rule: string }[];
let lintReports: Map<string, string[]>;

async function writeProbe(folder: string, file: string, source: string) {
  await mkdir(path.dirname(path.join(folder, file)), { recursive: true });
  await writeFile(path.join(folder, file), source);
}

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'layering-'));
  const layers = path.join(scratch, 'layers');
  const lint = path.join(scratch, 'lint');
  await mkdir(layers);
  await cp(path.join(root, '.dependency-cruiser.cjs'), path.join(layers, '.dependency-cruiser.cjs'));
  await cp(path.join(root, 'tsconfig.json'), path.join(layers, 'tsconfig.json'));
  await symlink(path.join(root, 'node_modules'), path.join(layers, 'node_modules'));
  const sources = {
    ...targets,
    ...Object.fromEntries(Object.entries(breaking).map(([f, [s]]) => [f, s])),
    ...keeping,
  };
  for (const [file, source] of Object.entries(sources)) await writeProbe(layers, file, source);
  const cruised = await run(
    bin('depcruise'),
    ['--output-type', 'json', 'entities', 'domain', 'routers', 'rest', 'adapters', 'app'],
    { cwd: layers, maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
  violations = JSON.parse(cruised.stdout).summary.violations.map(
    (v: { from: string; rule: { name: string } }) => ({ from: v.from, rule: v.rule.name }),
  );

  await mkdir(lint);
  const config = JSON.parse(await readFile(path.join(root, 'biome.json'), 'utf8'));
  delete config.$schema;
  await writeFile(path.join(lint, 'biome.json'), JSON.stringify(config));
  await cp(path.join(root, 'lint'), path.join(lint, 'lint'), { recursive: true });
  for (const [file, [source]] of Object.entries(linted)) await writeProbe(lint, file, source);
  const { stdout } = await run(bin('biome'), ['lint', '--reporter=json', '.'], { cwd: lint }).catch(
    (error: { stdout: string }) => ({ stdout: error.stdout }),
  );
  lintReports = new Map();
  for (const d of JSON.parse(stdout).diagnostics as { category: string; location: { path: string } }[]) {
    lintReports.set(d.location.path, [...(lintReports.get(d.location.path) ?? []), d.category]);
  }
}, 120_000);

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('layer rules (dependency-cruiser)', () => {
  it.each(Object.entries(breaking))('reports %s', (file, [, rule]) => {
    expect(violations.filter((v) => v.from === file).map((v) => v.rule)).toContain(rule);
  });

  it.each(Object.keys(keeping))('allows %s', (file) => {
    expect(violations.filter((v) => v.from === file)).toEqual([]);
  });

  it('finds no violation in the service itself', async () => {
    const { stdout } = await run(
      bin('depcruise'),
      [
        '--output-type',
        'json',
        'app',
        'adapters',
        'domain',
        'routers',
        'rest',
        'entities',
        'client',
        'migrations',
      ],
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
    );
    const result = JSON.parse(stdout);
    expect(result.summary.violations).toEqual([]);
    // The walk really covered the service: every layer's modules were read.
    expect(result.summary.totalCruised).toBeGreaterThan(300);
  }, 120_000);
});

describe('lint plugins (biome)', () => {
  it.each(Object.entries(linted))('%s', (file, [, reported]) => {
    if (reported) expect(lintReports.get(file)).toContain('plugin');
    else expect(lintReports.get(file)).toBeUndefined();
  });
});
