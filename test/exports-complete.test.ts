import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTransaction, waitForTableLockWaiter } from './helpers/blocking-transaction.ts';
import * as fixtures from './helpers/fixtures.ts';
import type { HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/**
 * Exports that complete, end to end over HTTP with the real renderers (adapters/export/render-*.ts):
 * each format's file downloads from its signed address as the export describes it, its event
 * carries it without the address, the export shows the deck as it was when its work started, a deck
 * of 200 slides exports, and a cancel while a video renders stops it and leaves nothing behind.
 * (What each file holds is the renderers' own tests'; the PDF's text is read here with pdftotext only
 * to see which deck it shows.)
 */
const run = promisify(execFile);
let t: TestApp;
let owner: HttpClient & { organizationId: string };
let deckId: string;
let scratch: string;

beforeAll(async () => {
  t = await startTestApp({
    EXPORT_POLL_INTERVAL_MS: '50',
    GENERATION_POLL_INTERVAL_MS: '50',
    DATABASE_STATEMENT_TIMEOUT_MS: '60000',
  });
  scratch = await mkdtemp(path.join(os.tmpdir(), 'deck-exports-'));
  owner = await t.signedInClient();
  deckId = await narratedDeck(3);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await rm(scratch, { recursive: true, force: true });
});

/** A deck with branding, an intro, `slides` slides and a FAQ, narrated (espeak-ng, built in). */
async function narratedDeck(slides: number): Promise<string> {
  const id = (await owner.post('/api/decks', { name: 'Q4 pitch' })).body.id as string;
  await owner.put(`/api/decks/${id}/branding`, fixtures.branding);
  await owner.put(`/api/decks/${id}/intro`, fixtures.intro);
  for (let i = 1; i <= slides; i++) {
    await owner.post(`/api/decks/${id}/slides`, {
      title: `Slide ${i}`,
      bullets: [`Point ${i}`],
      narrationScript: `This is slide number ${i}.`,
    });
  }
  await owner.post(`/api/decks/${id}/slides`, {
    title: 'Pricing',
    slideType: 'product_pricing_v1',
    productData: fixtures.productData,
  });
  await owner.post(`/api/decks/${id}/faqs`, fixtures.validBodies['POST /decks/{deckId}/faqs']);
  expect((await owner.post(`/api/decks/${id}/generate`)).status).toBe(202);
  await eventually(
    async () => (await owner.get(`/api/decks/${id}/generate/status`)).body.status === 'completed',
    60_000,
  );
  return id;
}

async function exported(deck: string, body: Record<string, unknown>, timeoutMs = 120_000) {
  const created = await owner.post(`/api/decks/${deck}/exports`, body);
  expect(created.status, created.text).toBe(202);
  return eventually(async () => {
    const answer = (await owner.get(`/api/exports/${created.body.id}`)).body;
    if (answer.status === 'failed') throw new Error(`export failed: ${answer.error}`);
    return answer.status === 'completed' ? answer : null;
  }, timeoutMs);
}

async function download(file: { url: string }): Promise<Buffer> {
  const answer = await fetch(file.url);
  expect(answer.status).toBe(200);
  return Buffer.from(await answer.arrayBuffer());
}

async function pdfText(bytes: Buffer): Promise<string> {
  const file = path.join(scratch, `${createHash('sha256').update(bytes).digest('hex')}.pdf`);
  await writeFile(file, bytes);
  return (await run('pdftotext', [file, '-'])).stdout;
}

const TYPES = {
  pdf: 'application/pdf',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  mp4: 'video/mp4',
} as const;

describe('an export that completes', () => {
  it.each(Object.entries(TYPES))(
    '%s: its file downloads as described, and export.completed carries it without its address',
    async (format, contentType) => {
      const done = await exported(deckId, { format });
      expect(done.error).toBeNull();
      expect(done.progress.total).toBeGreaterThan(0);
      expect(done.progress.done).toBe(done.progress.total);
      expect(done.file).toMatchObject({
        contentType,
        filename: `Q4-pitch.${format}`,
        expiresIn: t.app.config.storage.downloadUrlExpiresSeconds,
      });
      const bytes = await download(done.file);
      expect(bytes.length).toBe(done.file.sizeBytes);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(done.file.sha256);
      if (format === 'mp4') {
        expect(done.captionsFile).toMatchObject({ contentType: 'text/vtt', filename: 'Q4-pitch.vtt' });
        const captions = await download(done.captionsFile);
        expect(captions.toString('utf8').startsWith('WEBVTT')).toBe(true);
        expect(createHash('sha256').update(captions).digest('hex')).toBe(done.captionsFile.sha256);
      } else {
        expect(done.captionsFile).toBeNull();
      }
      const days = (Date.parse(done.expiresAt) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(6.99);
      expect(await t.eventTypes(done.id)).toEqual(['export.completed']);
      const log = await owner.get(
        `/api/notifications/events?eventType=export.completed&aggregateId=${done.id}`,
      );
      const withoutAddress = (file: { url: string } | null) => {
        if (!file) return null;
        const { url: _url, ...rest } = file;
        return rest;
      };
      expect(log.body.events[0].payload).toEqual({
        ...done,
        updatedAt: log.body.events[0].payload.updatedAt,
        file: withoutAddress(done.file),
        captionsFile: withoutAddress(done.captionsFile),
        actor: { type: 'system' },
      });
    },
    180_000,
  );

  it('mp4 without captions: no captionsFile', async () => {
    const done = await exported(deckId, { format: 'mp4', captions: false });
    expect(done.captionsFile).toBeNull();
  }, 180_000);

  it('shows the deck as it was when its work started: an edit committed meanwhile is not in it', async () => {
    const deck = await narratedDeck(2);
    const slide = (await owner.get(`/api/decks/${deck}/slides`)).body.slides[0];
    const hold = await openTransaction(t.databaseUrl);
    let exportId: string;
    try {
      // The snapshot is taken (it has read the deck) and waits at the branding.
      await hold.query('lock table deck_branding in access exclusive mode');
      exportId = (await owner.post(`/api/decks/${deck}/exports`, { format: 'pdf' })).body.id;
      await waitForTableLockWaiter(t.databaseUrl, 'deck_branding');
      expect((await owner.patch(`/api/slides/${slide.id}`, { title: 'Renamed afterwards' })).status).toBe(
        200,
      );
    } finally {
      await hold.commit();
    }
    const done = await eventually(async () => {
      const answer = (await owner.get(`/api/exports/${exportId}`)).body;
      return answer.status === 'completed' ? answer : null;
    }, 60_000);
    const text = await pdfText(await download(done.file));
    expect(text).toContain(slide.title);
    expect(text).not.toContain('Renamed afterwards');
  }, 180_000);

  it('exports a deck of 200 slides', async () => {
    const deck = (await owner.post('/api/decks', { name: 'Long deck' })).body.id as string;
    await t.app.database.orm.em.getConnection().execute(
      `insert into slide (id, deck_id, slide_id, title, bullets, order_index)
       select gen_random_uuid(), ?, 'bulk-' || i, 'Bulk slide ' || i, '["A point"]'::jsonb, i - 1
         from generate_series(1, 200) i`,
      [deck],
    );
    const done = await exported(deck, { format: 'pdf' }, 180_000);
    const text = await pdfText(await download(done.file));
    expect(text).toContain('Bulk slide 1');
    expect(text).toContain('Bulk slide 200');
  }, 240_000);

  it('stops a video canceled while it renders: canceled, no export.completed, nothing stored or left behind', async () => {
    const deck = await narratedDeck(6);
    const created = (await owner.post(`/api/decks/${deck}/exports`, { format: 'mp4' })).body;
    await eventually(async () => {
      const answer = (await owner.get(`/api/exports/${created.id}`)).body;
      if (answer.status !== 'processing' && answer.status !== 'pending')
        throw new Error(`ended: ${answer.status}`);
      return answer.progress.done >= 1;
    }, 60_000);
    const deleted = await owner.request('DELETE', `/api/exports/${created.id}`);
    expect(deleted.body).toMatchObject({ status: 'canceled', file: null });
    await eventually(() =>
      t
        .logs()
        .split('\n')
        .some(
          (line) =>
            line.includes(created.id) &&
            (line.includes('"msg":"export ended"') || line.includes('no longer this instance')),
        ),
    );
    expect((await owner.get(`/api/exports/${created.id}`)).body.status).toBe('canceled');
    expect(await t.eventTypes(created.id)).toEqual([]);
    const stored = path.join(t.app.config.dataDir, 'objects', 'org', owner.organizationId, 'exports');
    expect((await readdir(stored).catch(() => [])).filter((name) => name.startsWith(created.id))).toEqual([]);
    expect(
      (await readdir(t.app.config.exports.workDir)).filter((name) => name.startsWith(created.id)),
    ).toEqual([]);
  }, 180_000);
});
