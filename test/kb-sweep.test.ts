import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepAbandonedKbUploads } from '../domain/kb/abandoned-uploads.ts';
import type { HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/**
 * Knowledge-base uploads that were started but never completed are removed, with their
 * objects, once older than KB_PENDING_TTL_HOURS. Age is made by moving the row's
 * `created_at` back in the database.
 */
let t: TestApp;
let user: HttpClient & { organizationId: string };
beforeAll(async () => {
  // The background sweep runs once at start and then hourly: the tests call it themselves,
  // except the one that checks the background sweep on an app of its own.
  t = await startTestApp({ KB_SWEEP_INTERVAL_MS: String(3600_000) });
  user = await t.signedInClient();
});
afterAll(() => t.close());

const BODY = '# Pricing\n!';

async function startUpload(client: HttpClient, options: { put?: boolean; complete?: boolean } = {}) {
  const init = await client.post('/api/company/kb/documents/upload-init', {
    filename: 'notes.md',
    contentType: 'text/markdown',
    sizeBytes: BODY.length,
  });
  expect(init.status).toBe(201);
  const { documentId, uploadUrl, storageKey } = init.body as Record<string, string>;
  if (options.put || options.complete) {
    const put = await fetch(uploadUrl!, {
      method: 'PUT',
      headers: { 'content-type': 'text/markdown' },
      body: BODY,
    });
    expect(put.status).toBe(200);
  }
  if (options.complete) {
    expect((await client.post(`/api/company/kb/documents/${documentId}/complete`)).status).toBe(200);
  }
  return { documentId: documentId!, storageKey: storageKey! };
}

async function age(app: TestApp, documentId: string, hours: number) {
  await app.app.database.orm.em
    .getConnection()
    .execute(`update kb_document set created_at = now() - make_interval(hours => ?) where id = ?`, [
      hours,
      documentId,
    ]);
}

async function listedIds(client: HttpClient): Promise<string[]> {
  const response = await client.get('/api/company/kb/documents');
  expect(response.status).toBe(200);
  return (response.body.documents as { id: string }[]).map((d) => d.id);
}

async function deletedEvents(client: HttpClient) {
  const response = await client.get('/api/notifications/events?eventType=kb_document.deleted&limit=100');
  expect(response.status).toBe(200);
  return response.body.events as { aggregateId: string; payload: Record<string, unknown> }[];
}

describe('sweep of knowledge-base uploads never completed', () => {
  it('removes pending documents past the TTL and their objects, with an event, and keeps the rest', async () => {
    const putNotCompleted = await startUpload(user, { put: true });
    const neverPut = await startUpload(user);
    const completedLongAgo = await startUpload(user, { complete: true });
    const youngPending = await startUpload(user, { put: true });
    await age(t, putNotCompleted.documentId, 25);
    await age(t, neverPut.documentId, 25);
    await age(t, completedLongAgo.documentId, 25);
    await age(t, youngPending.documentId, 23);
    expect(await t.app.services.storage.head(putNotCompleted.storageKey)).not.toBeNull();

    expect(await sweepAbandonedKbUploads(t.app.database.orm.em, t.app.services)).toBe(2);

    const listed = await listedIds(user);
    expect(listed).not.toContain(putNotCompleted.documentId);
    expect(listed).not.toContain(neverPut.documentId);
    expect(listed).toEqual(expect.arrayContaining([completedLongAgo.documentId, youngPending.documentId]));
    expect(await t.app.services.storage.head(putNotCompleted.storageKey)).toBeNull();
    expect(await t.app.services.storage.head(completedLongAgo.storageKey)).not.toBeNull();
    expect(await t.app.services.storage.head(youngPending.storageKey)).not.toBeNull();

    expect(await t.eventTypes(putNotCompleted.documentId)).toEqual([
      'kb_document.upload_initiated',
      'kb_document.deleted',
    ]);
    const events = await deletedEvents(user);
    const event = events.find((e) => e.aggregateId === putNotCompleted.documentId);
    expect(event?.payload).toMatchObject({
      id: putNotCompleted.documentId,
      status: 'pending',
      storageKey: putNotCompleted.storageKey,
      reason: 'upload_expired',
    });
    // A second sweep finds nothing more to do.
    expect(await sweepAbandonedKbUploads(t.app.database.orm.em, t.app.services)).toBe(0);
  });

  it('takes the age from KB_PENDING_TTL_HOURS, and never less than the upload address stays valid', async () => {
    const short = await startTestApp({ KB_PENDING_TTL_HOURS: '2', KB_SWEEP_INTERVAL_MS: String(3600_000) });
    try {
      const client = await short.signedInClient();
      const threeHours = await startUpload(client);
      const oneHour = await startUpload(client);
      await age(short, threeHours.documentId, 3);
      await age(short, oneHour.documentId, 1);
      expect(await sweepAbandonedKbUploads(short.app.database.orm.em, short.app.services)).toBe(1);
      expect(await listedIds(client)).toEqual([oneHour.documentId]);
    } finally {
      await short.close();
    }

    // A TTL shorter than the upload address's lifetime: a PUT could still come, so it waits.
    const lasting = await startTestApp({
      KB_PENDING_TTL_HOURS: '1',
      UPLOAD_URL_EXPIRES_SECONDS: String(5 * 3600),
      KB_SWEEP_INTERVAL_MS: String(3600_000),
    });
    try {
      const client = await lasting.signedInClient();
      const twoHours = await startUpload(client);
      const sixHours = await startUpload(client);
      await age(lasting, twoHours.documentId, 2);
      await age(lasting, sixHours.documentId, 6);
      expect(await sweepAbandonedKbUploads(lasting.app.database.orm.em, lasting.app.services)).toBe(1);
      expect(await listedIds(client)).toEqual([twoHours.documentId]);
    } finally {
      await lasting.close();
    }
  });

  it('several instances sweeping at once remove each document once, each event in its own organization', async () => {
    // A second instance on the same database and the same local object store.
    const second = await startTestApp(
      { KB_SWEEP_INTERVAL_MS: String(3600_000), DATA_DIR: t.app.config.dataDir },
      { databaseUrl: t.databaseUrl },
    );
    try {
      const a = await t.signedInClient();
      const b = await t.signedInClient();
      const documents = [] as { documentId: string; storageKey: string; owner: typeof a }[];
      for (let i = 0; i < 60; i++) {
        const owner = i % 2 === 0 ? a : b;
        documents.push({ ...(await startUpload(owner, { put: i % 3 === 0 })), owner });
      }
      await t.app.database.orm.em.getConnection().execute(
        `update kb_document set created_at = now() - interval '30 hours' where id in (${documents.map(() => '?').join(',')})`,
        documents.map((d) => d.documentId),
      );

      const counts = await Promise.all(
        [t, second, t, second].map((app) =>
          sweepAbandonedKbUploads(app.app.database.orm.em, app.app.services),
        ),
      );
      expect(counts.reduce((sum, n) => sum + n, 0)).toBe(60);

      for (const client of [a, b]) {
        const mine = documents.filter((d) => d.owner === client).map((d) => d.documentId);
        const events = await deletedEvents(client);
        expect(events.map((e) => e.aggregateId).sort()).toEqual([...mine].sort());
        expect(await listedIds(client)).toEqual([]);
      }
      for (const document of documents) {
        expect(await t.app.services.storage.head(document.storageKey)).toBeNull();
      }
    } finally {
      await second.close();
    }
  });

  it('runs in the background on its own', async () => {
    const busy = await startTestApp({ KB_SWEEP_INTERVAL_MS: '50' });
    try {
      const client = await busy.signedInClient();
      const abandoned = await startUpload(client, { put: true });
      await age(busy, abandoned.documentId, 48);
      await eventually(async () => !(await listedIds(client)).includes(abandoned.documentId));
      expect(await busy.app.services.storage.head(abandoned.storageKey)).toBeNull();
      expect(await busy.eventTypes(abandoned.documentId)).toEqual([
        'kb_document.upload_initiated',
        'kb_document.deleted',
      ]);
    } finally {
      await busy.close();
    }
  });
});
