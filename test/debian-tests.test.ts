import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEEDS_DEBIAN } from './helpers/debian-tests.ts';
import { projectRoot } from './helpers/processes.ts';

/**
 * `npm run test:quick` leaves out the test files of test/helpers/debian-tests.ts: this keeps that
 * list true. A test file uses a Debian program when it names one as a string (what it runs, e.g.
 * `'ffprobe'`), imports a helper that starts one, drives a browser, or the REST client tools.
 */
const HELPERS_THAT_RUN_PROGRAMS = [
  /swift-s3\.ts/,
  /helpers\/prometheus\.ts/,
  /printedByLibreOffice/,
  /from 'playwright-core'/,
  /test\/rest-client\//,
];
/** It tests the installer itself, with stand-in programs on its PATH: it names them, runs none. */
const NAMES_ONLY = new Set(['test/install-test-packages.test.ts', 'test/debian-tests.test.ts']);

async function programsOfInstaller(): Promise<string[]> {
  const script = await readFile(path.join(projectRoot, 'scripts/install-test-packages.sh'), 'utf8');
  const programs = /^programs=\(([^)]*)\)/m.exec(script)?.[1]?.split(/\s+/).filter(Boolean) ?? [];
  // Beside the list: chromium (or CHROMIUM_PATH), and pdftotext/pdffonts of poppler-utils (pdfinfo is listed).
  return [...programs, 'chromium', 'pdftotext', 'pdffonts'];
}

describe('the tests npm run test:quick leaves out', () => {
  it('lists every test file that runs a program from a Debian package, and only existing files', async () => {
    const programs = await programsOfInstaller();
    expect(programs).toContain('ffprobe');
    const named = new RegExp(`['"\`](${programs.join('|')})['"\`]`);
    const files = (await readdir(path.join(projectRoot, 'test'))).filter((f) => f.endsWith('.test.ts'));
    const using: string[] = [];
    for (const file of files) {
      const name = `test/${file}`;
      if (NAMES_ONLY.has(name)) continue;
      const source = await readFile(path.join(projectRoot, name), 'utf8');
      if (named.test(source) || HELPERS_THAT_RUN_PROGRAMS.some((pattern) => pattern.test(source)))
        using.push(name);
    }
    expect(using.sort()).toEqual(Object.keys(NEEDS_DEBIAN).sort());
  });
});
