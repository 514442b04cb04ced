import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * Issue 24: the document as the running app serves it, linted by two tools nobody here wrote,
 * with their standard rule sets (`.spectral.yaml`: spectral:oas; `redocly.yaml`: recommended).
 * Zero errors and zero warnings; a rule turned off says why in its config file.
 */

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

let t: TestApp;
let dir: string;
let file: string;

beforeAll(async () => {
  t = await startTestApp();
  dir = await mkdtemp(path.join(tmpdir(), 'deck-openapi-lint-'));
  file = path.join(dir, 'openapi.json');
  await writeFile(file, (await t.client().get('/api/openapi.json')).text);
});
afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Runs a linter, whose exit status says only that it found something: its report is what counts. */
async function report(command: string, args: string[]): Promise<string> {
  const options = {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  };
  try {
    return (await run(process.execPath, [command, ...args], options)).stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    if (!stdout) throw new Error(`${path.basename(command)} did not run: ${stderr}`);
    return stdout;
  }
}

/** The `tool`'s lint of the served document, with its configuration file of the repository, as JSON. */
const lint = (tool: string, configOption: string, config: string, ...more: string[]) =>
  report(bin(tool), ['lint', file, configOption, path.join(root, config), '--format', 'json', ...more]);

describe('the served OpenAPI document', () => {
  it('passes Spectral’s spectral:oas rules with no error and no warning', async () => {
    const output = await lint('spectral', '--ruleset', '.spectral.yaml', '--quiet');
    const problems = JSON.parse(output.slice(output.indexOf('['))) as {
      code: string;
      message: string;
      path: string[];
      severity: number;
    }[];
    expect(problems.map((p) => `${p.code}: ${p.message} at ${p.path.join('.')}`)).toEqual([]);
  }, 60_000);

  it('passes Redocly’s recommended rules with no error and no warning', async () => {
    const output = await lint('redocly', '--config', 'redocly.yaml');
    const result = JSON.parse(output.slice(output.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
    };
    expect(result.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
    expect(result.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);
});
