import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMp3 } from './helpers/audio.ts';
import { fixturesDir } from './helpers/documents.ts';
import { HttpClient } from './helpers/http-client.ts';
import { childEnv, projectRoot, startServerProcess } from './helpers/processes.ts';
import { createTestDatabase } from './helpers/test-app.ts';

/**
 * `npm start` builds the service into dist/ (`npm run build`, tsconfig.build.json) and runs it
 * compiled; every other test runs the sources. This one builds as `start` does, runs the node
 * command of package.json's `start` script, and uses what differs once compiled: the
 * worker threads' modules (speech, contract reading), found beside their callers as `.js`, and
 * the package's own version in the OpenAPI document.
 */
const manifest = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8'));
const DEMO_PASSWORD = 'the-demo-password-1';

let server: Awaited<ReturnType<typeof startServerProcess>>;
let dataDir: string;
const client = () => new HttpClient(server.url);

beforeAll(async () => {
  const [build, run] = (manifest.scripts.start as string).split('&&').map((part) => part.trim());
  expect(build).toBe('npm run -s build');
  await promisify(execFile)('npm', ['run', '-s', 'build'], {
    cwd: projectRoot,
    env: childEnv({}),
  });
  const [node, ...entry] = run!.split(/\s+/);
  expect(node).toBe('node');
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'deck-compiled-'));
  server = await startServerProcess(
    {
      DATABASE_URL: await createTestDatabase(),
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      DEMO_PASSWORD,
    },
    { entry },
  );
}, 120_000);

afterAll(async () => {
  if (server) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('npm start (the compiled service)', () => {
  it('runs dist/, not the sources, and its OpenAPI document carries the package version', async () => {
    expect(manifest.scripts.start).toMatch(/\bdist\/app\/main\.js\b/);
    const document = await client().get('/api/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.info.version).toBe(manifest.version);
  });

  it('speaks an FAQ answer and reads a contract in its worker threads', async () => {
    const user = client();
    expect(
      (await user.post('/api/auth/login', { email: 'demo@example.com', password: DEMO_PASSWORD })).status,
    ).toBe(200);
    const deck = (await user.post('/api/decks', { name: 'Compiled' })).body;
    const faq = await user.post(`/api/decks/${deck.id}/faqs`, {
      userQuestion: 'Is there a free trial?',
      cannedAnswer: 'Yes, every plan starts with a thirty day trial.',
    });
    expect(faq.status, faq.text).toBe(201);
    expect(faq.body.audioStatus).toBe('ready');
    const audio = await fetch(new URL(faq.body.audioUrl, server.url));
    expect(audio.status).toBe(200);
    expect(isMp3(Buffer.from(await audio.arrayBuffer()))).toBe(true);

    const contract = readFileSync(path.join(fixturesDir, 'common-paper-mutual-nda.docx'));
    const imported = await user.upload('/api/contracts/import', {
      name: 'common-paper-mutual-nda.docx',
      bytes: contract,
    });
    expect(imported.status, imported.text).toBe(200);
    expect(imported.body.detectedVariables.length).toBeGreaterThan(0);
  }, 60_000);
});
