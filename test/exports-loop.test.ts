import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as fixtures from './helpers/fixtures.ts';
import { HttpClient } from './helpers/http-client.ts';
import type { LoopStalls } from './helpers/loop-probe.ts';
import { runScript, startServerProcess } from './helpers/processes.ts';
import { createTestDatabase } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/**
 * api.md: rendering runs off the event loop; no request waits > 50 ms on an export. Three exports
 * (one of each format) render at once in the real service (its own process, vitest project
 * `alone`) while `/healthz` is asked back to back; a probe inside the service
 * (`helpers/loop-probe.ts`) measures the longest time its own thread held the event loop. It runs
 * with the real renderers (after they are merged).
 */
let server: Awaited<ReturnType<typeof startServerProcess>>;
let owner: HttpClient;
let dataDir: string;

const stalls = () =>
  new Promise<LoopStalls>((resolve) => {
    server.child.once('message', (message) => resolve(message as LoopStalls));
    server.child.send('loop-stalls');
  });

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'deck-export-loop-'));
  const env = {
    DATABASE_URL: await createTestDatabase(),
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    SEED_DEMO: 'false',
    EXPORT_CONCURRENCY: '3',
    EXPORTS_PER_ORGANIZATION: '3',
    EXPORT_POLL_INTERVAL_MS: '50',
    GENERATION_POLL_INTERVAL_MS: '50',
  };
  server = await startServerProcess(env, {
    nodeArgs: ['--import', './test/helpers/loop-probe.ts'],
    ipc: true,
  });
  const email = `owner-${randomUUID()}@example.test`;
  const password = 'a-long-password-for-exports';
  const created = await runScript(
    'scripts/admin.ts',
    ['create-user', '--organization', 'Loop', '--email', email],
    env,
    `${password}\n`,
  );
  expect(created.code, created.stderr).toBe(0);
  owner = new HttpClient(server.url);
  expect((await owner.post('/api/auth/login', { email, password })).status).toBe(200);
}, 120_000);
afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  await rm(dataDir, { recursive: true, force: true });
});

describe('three exports rendering at once', () => {
  it('never hold the service’s event loop 50 ms', async () => {
    const deckId = (await owner.post('/api/decks', { name: 'Busy deck' })).body.id as string;
    await owner.put(`/api/decks/${deckId}/branding`, fixtures.branding);
    await owner.put(`/api/decks/${deckId}/intro`, fixtures.intro);
    for (let i = 1; i <= 8; i++) {
      await owner.post(`/api/decks/${deckId}/slides`, {
        title: `Slide ${i}`,
        bullets: [`Point ${i}`, `Another point ${i}`],
        narrationScript: `Slide ${i} explains one more reason to buy, in a sentence or two.`,
      });
    }
    await owner.post(`/api/decks/${deckId}/faqs`, fixtures.validBodies['POST /decks/{deckId}/faqs']);
    await owner.post(`/api/decks/${deckId}/generate`);
    await eventually(
      async () => (await owner.get(`/api/decks/${deckId}/generate/status`)).body.status === 'completed',
      60_000,
    );

    await stalls();
    const ids: string[] = [];
    for (const format of ['mp4', 'pptx', 'pdf']) {
      ids.push((await owner.post(`/api/decks/${deckId}/exports`, { format })).body.id);
    }
    const waits: number[] = [];
    let ended = false;
    while (!ended) {
      const started = performance.now();
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      waits.push(performance.now() - started);
      const statuses = await Promise.all(
        ids.map(async (id) => (await owner.get(`/api/exports/${id}`)).body.status as string),
      );
      if (statuses.includes('failed')) throw new Error(`an export failed: ${statuses}`);
      ended = statuses.every((status) => status === 'completed');
    }
    const { longestStallMs, longestGcMs } = await stalls();
    const p99 = [...waits].sort((a, b) => a - b)[Math.floor(waits.length * 0.99)]!;
    console.info(
      `exports loop: /healthz p99 ${p99.toFixed(1)} ms over ${waits.length} asks, longest stall ${longestStallMs.toFixed(1)} ms (gc ${longestGcMs.toFixed(1)} ms)`,
    );
    expect(longestStallMs).toBeLessThan(50);
  }, 300_000);
});
