import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ExportJob } from '../../entities/ExportJob.ts';
import { newId } from '../../entities/ids.ts';
import type { Auth, DomainContext } from '../context.ts';
import { findDeck } from '../decks/find-deck.ts';
import { badRequest, notFound } from '../errors.ts';
import type { ExportFormat } from '../ports/deck-exporter.ts';
import { markQueued } from '../queued-work.ts';
import { MAX_EXPORT_SLIDES } from './deck-snapshot.ts';
import { type ExportOutput, toExportOutput } from './export-output.ts';

/** What `POST /decks/{deckId}/exports` takes. */
export interface ExportRequest {
  format: ExportFormat;
  includeFaqs: boolean;
  captions: boolean;
}

/**
 * Queues an export of the caller's deck (202): a worker renders it (`export-work.ts`), and
 * `export.completed` or `export.failed` says how it ended. A deck of more than MAX_EXPORT_SLIDES
 * slides is a 400, and nothing is queued. Its file is kept EXPORT_RETENTION_DAYS after it
 * completes; until then `expiresAt` counts from now.
 */
export async function createExport(
  { em, auth, services }: DomainContext,
  deckId: string,
  request: ExportRequest,
): Promise<ExportOutput> {
  const job = await em.transactional(async (em) => {
    // Locked: a deck deleted meanwhile is a 404, not an export of nothing.
    const deck = await findDeck(em, auth, deckId, { lock: true });
    const [{ slides } = { slides: 0 }] = await em.execute<{ slides: number }[]>(
      'select count(*)::int as slides from slide where deck_id = ?',
      [deck.id],
    );
    if (slides > MAX_EXPORT_SLIDES) {
      throw badRequest(
        `The deck has ${slides} slides; an export takes at most ${MAX_EXPORT_SLIDES}: split the deck first`,
      );
    }
    const retentionMs = services.settings.exports.retentionDays * 24 * 3600 * 1000;
    const job = em.create(ExportJob, {
      id: newId(),
      organization: auth.organizationId,
      deck,
      format: request.format,
      includeFaqs: request.includeFaqs,
      captions: request.captions,
      status: 'pending',
      progressDone: 0,
      progressTotal: 0,
      warnings: [],
      expiresAt: new Date(Date.now() + retentionMs),
    });
    em.persist(job);
    await em.flush();
    return job;
  });
  return toExportOutput(job, services);
}

/** One export of the caller's organization (of a deck that still exists), or NOT_FOUND. */
async function findExport(
  em: EntityManager,
  auth: Auth,
  exportId: string,
  options: { lock?: boolean } = {},
): Promise<ExportJob> {
  const job = await em.findOne(
    ExportJob,
    { id: exportId, organization: auth.organizationId, deck: { $ne: null } },
    options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
  );
  if (!job) throw notFound('Export', exportId);
  return job;
}

export async function getExport(
  { em, auth, services }: DomainContext,
  exportId: string,
): Promise<ExportOutput> {
  return toExportOutput(await findExport(em, auth, exportId), services);
}

/** The deck's exports, newest first, in pages of `limit` after `offset` or after the export `after`. */
export async function listExports(
  { em, auth, services }: DomainContext,
  deckId: string,
  page: { limit: number; offset: number; after?: string },
): Promise<{
  exports: ExportOutput[];
  pagination: { total: number; limit: number; offset: number; nextAfter: string | null };
}> {
  if (page.after !== undefined && page.offset !== 0) {
    throw badRequest('Page with after or with offset, not both', [
      { path: ['offset'], message: 'must be 0 (or left out) with after' },
    ]);
  }
  const deck = await findDeck(em, auth, deckId);
  // `after`: the exports that follow it, newest first (keyset: page N costs what page 1 does).
  // Compared in the database, at its microseconds: a JavaScript Date would cut them to milliseconds.
  const after = 'select created_at, id from export_job where id = ? and deck_id = ?';
  if (page.after !== undefined) {
    const [found] = await em.execute(`${after}`, [page.after, deck.id]);
    if (!found) {
      throw badRequest(`Export ${page.after} is not an export of this deck`, [
        { path: ['after'], message: 'is not an export of this deck' },
      ]);
    }
  }
  const rows = await em.execute<(Record<string, unknown> & { total: number })[]>(
    `select j.*, (select count(*)::int from export_job where deck_id = ?) as total
       from export_job j
      where j.deck_id = ? ${page.after === undefined ? '' : `and (j.created_at, j.id) < (${after})`}
      order by j.created_at desc, j.id desc
      limit ? offset ?`,
    [
      deck.id,
      deck.id,
      ...(page.after === undefined ? [] : [page.after, deck.id]),
      page.limit + 1,
      page.offset,
    ],
  );
  const total =
    rows[0]?.total ??
    (
      await em.execute<{ total: number }[]>(
        'select count(*)::int as total from export_job where deck_id = ?',
        [deck.id],
      )
    )[0]!.total;
  const jobs = rows.map(({ total: _total, ...row }) => em.map(ExportJob, row));
  const more = jobs.length > page.limit;
  if (more) jobs.pop();
  return {
    exports: await Promise.all(jobs.map((job) => toExportOutput(job, services))),
    pagination: {
      total,
      limit: page.limit,
      offset: page.offset,
      nextAfter: more ? jobs.at(-1)!.id : null,
    },
  };
}

/**
 * Deletes an export's file (and captions), and cancels the export when it has not ended: its
 * worker sees at its next lease renewal (EXPORT_POLL_INTERVAL_MS) that the export is no longer its
 * own, stops rendering and leaves nothing behind; no `export.completed` or `export.failed` follows.
 * The export stays, with `file: null` (status `canceled`, or the end it had reached), so a client
 * following it sees how it ended. The objects go first, under the row's lock: an object that
 * cannot be deleted now leaves the export as it was (the request fails and may be repeated).
 */
export async function deleteExport(
  { em, auth, services }: DomainContext,
  exportId: string,
): Promise<ExportOutput> {
  const job = await em.transactional(async (em) => {
    const job = await findExport(em, auth, exportId, { lock: true });
    for (const key of [job.fileKey, job.captionsKey]) if (key) await services.storage.delete(key);
    if (job.status === 'pending' || job.status === 'processing') {
      if (job.status === 'processing') markQueued(em, 'exports');
      job.status = 'canceled';
      job.lockedUntil = null;
      job.completedAt = new Date();
    }
    Object.assign(job, {
      fileKey: null,
      fileSize: null,
      fileSha256: null,
      fileContentType: null,
      fileName: null,
      captionsKey: null,
      captionsSize: null,
      captionsSha256: null,
    });
    await em.flush();
    await em.refresh(job);
    return job;
  });
  return toExportOutput(job, services);
}
