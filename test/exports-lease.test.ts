import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openTransaction, waitForTableLockWaiter } from './helpers/blocking-transaction.ts';
import * as fixtures from './helpers/fixtures.ts';
import { startServerProcess } from './helpers/processes.ts';
import { createTestDatabase, startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/**
 * An instance killed with SIGKILL while it renders an export: its lease lapses (EXPORT_LEASE_SECONDS,
 * no release), another instance on the same database claims the export (attempt 2), removes what the
 * dead one left in the shared work directory, and ends it; the export ends once, with one event.
 * The first instance is a real server process; the export is held at its snapshot by a test
 * transaction that locks `deck_branding`, so the kill lands while it is claimed.
 */
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => {});
});

const WORKER_ENV = {
  EXPORT_LEASE_SECONDS: '2',
  EXPORT_POLL_INTERVAL_MS: '50',
  DATABASE_STATEMENT_TIMEOUT_MS: '60000',
  GENERATION_ENABLED: 'false',
};

async function rowOf(t: TestApp, exportId: string) {
  const [row] = await t.app.database.orm.em
    .getConnection()
    .execute<{ status: string; attempt: number }[]>('select status, attempt from export_job where id = ?', [
      exportId,
    ]);
  return row!;
}

describe('an instance killed while it renders an export', () => {
  it('lets its lease lapse, and another instance takes the export over and ends it', async () => {
    const databaseUrl = await createTestDatabase();
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'deck-export-lease-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    // Routes only (no export worker): the organization, the deck, the request.
    const front = await startTestApp({ EXPORTS_ENABLED: 'false', DATA_DIR: dataDir }, { databaseUrl });
    cleanup.push(() => front.close());
    const dying = await startServerProcess({
      ...WORKER_ENV,
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      SEED_DEMO: 'false',
      NOTIFICATIONS_ENABLED: 'false',
    });
    cleanup.push(async () => {
      dying.child.kill('SIGKILL');
      await dying.exited;
    });

    const owner = await front.signedInClient();
    const deckId = (await owner.post('/api/decks', { name: 'Survivor' })).body.id;
    await owner.put(`/api/decks/${deckId}/branding`, fixtures.branding);
    await owner.post(`/api/decks/${deckId}/slides`, { title: 'One', narrationScript: 'One.' });

    const hold = await openTransaction(databaseUrl);
    cleanup.push(() => hold.rollback());
    await hold.query('lock table deck_branding in access exclusive mode');
    const exportId = (await owner.post(`/api/decks/${deckId}/exports`, { format: 'mp4' })).body.id as string;
    await waitForTableLockWaiter(databaseUrl, 'deck_branding', 30_000);
    expect(await rowOf(front, exportId)).toEqual({ status: 'processing', attempt: 1 });
    expect(dying.output()).toContain(exportId);
    const workDir = path.join(dataDir, 'export-work');
    expect(await readdir(workDir)).toContain(`${exportId}-1`);

    dying.child.kill('SIGKILL');
    await dying.exited;
    const heir = await startTestApp({ ...WORKER_ENV, DATA_DIR: dataDir }, { databaseUrl });
    cleanup.push(() => heir.close());
    // Its lease lapses (nobody renews it now), and the second instance claims it.
    await eventually(async () => (await rowOf(front, exportId)).attempt === 2, 30_000);
    expect((await rowOf(front, exportId)).status).toBe('processing');
    await waitForTableLockWaiter(databaseUrl, 'deck_branding', 30_000);
    // What the dead instance left is gone; the heir works in its own directory.
    expect((await readdir(workDir)).filter((name) => name.startsWith(exportId))).toEqual([`${exportId}-2`]);

    await hold.commit();
    const ended = await eventually(async () => {
      const answer = await owner.get(`/api/exports/${exportId}`);
      return ['completed', 'failed'].includes(answer.body.status) ? answer.body : null;
    }, 60_000);
    expect((await rowOf(front, exportId)).attempt).toBe(2);
    expect(await front.eventTypes(exportId)).toEqual([`export.${ended.status}`]);
    // The heir logs it, and cleans up, once the end has committed.
    await eventually(() => heir.logs().includes('"msg":"export ended"'), 30_000);
    await eventually(async () => (await readdir(workDir)).every((name) => !name.startsWith(exportId)));
  }, 120_000);
});
