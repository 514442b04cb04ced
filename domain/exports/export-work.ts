import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ExportJob } from '../../entities/ExportJob.ts';
import { recordEvent, SYSTEM_ACTOR } from '../events/events.ts';
import { objectKeyFor } from '../object-keys.ts';
import { ExportFailed, type ExportFormat, type RenderedExport } from '../ports/deck-exporter.ts';
import type { Services } from '../services.ts';
import { copyDeckObjects, MAX_EXPORT_SLIDES, pagesOf, readDeck } from './deck-snapshot.ts';
import {
  CAPTIONS_CONTENT_TYPE,
  captionsFilename,
  exportFilename,
  toExportEventOutput,
} from './export-output.ts';

/**
 * The body of the export worker (`app/workers/export-runner.ts` runs it in its work loop): claiming
 * exports, rendering one, renewing and releasing leases. Every write a worker makes to its export
 * names the claim's `attempt` and `status = 'processing'`: once the export is canceled, deleted with
 * its deck, or claimed by another instance after this one's lease lapsed, those writes change
 * nothing, and the worker stops (decision 070).
 */
export interface ClaimedExport {
  id: string;
  organizationId: string;
  deckId: string;
  format: ExportFormat;
  includeFaqs: boolean;
  captions: boolean;
  attempt: number;
}

/** An export claimed this many times without finishing (each time its instance died) fails. */
export const MAX_ATTEMPTS = 3;
/** The warnings an export keeps, and the length of each (a deck of hostile text could make thousands). */
const MAX_WARNINGS = 100;
const MAX_WARNING_CHARS = 500;
/** What a failed export says when the renderer failed in a way of its own (its words stay in the log). */
export const RENDER_FAILED = 'The export could not be rendered';

/**
 * Claims up to `room` exports: pending ones, and processing ones whose worker stopped renewing
 * its lease (it died), oldest first but taken in turn across organizations, and never more than
 * `perOrganization` of one organization's processing at once (its others wait). Claims are made one
 * instance at a time (a transaction-scoped advisory lock: the count of an organization's running
 * exports must not change under a claim), and `for update skip locked` passes over a row a cancel
 * holds.
 */
export async function claimExports(
  em: EntityManager,
  room: number,
  settings: { leaseSeconds: number; perOrganization: number },
): Promise<ClaimedExport[]> {
  return em.transactional(async (tx) => {
    await tx.execute(`select pg_advisory_xact_lock(hashtext('export_job claims'))`);
    return tx.execute<ClaimedExport[]>(
      `with running as (
         select organization_id, count(*)::int as n from export_job
          where status = 'processing' and locked_until >= now() group by organization_id),
       waiting as (
         select j.id, j.created_at,
                coalesce(r.n, 0) + row_number() over (partition by j.organization_id order by j.created_at, j.id) as place
           from export_job j left join running r on r.organization_id = j.organization_id
          where j.deck_id is not null
            and (j.status = 'pending' or (j.status = 'processing' and j.locked_until < now())))
       update export_job j
          set status = 'processing', attempt = j.attempt + 1,
              locked_until = now() + make_interval(secs => ?), started_at = coalesce(j.started_at, now())
        where j.id in (
          select e.id from export_job e join waiting w on w.id = e.id
           where w.place <= ? and e.deck_id is not null
             and (e.status = 'pending' or (e.status = 'processing' and e.locked_until < now()))
           order by w.place, w.created_at, w.id
           limit ? for update of e skip locked)
        returning j.id, j.organization_id as "organizationId", j.deck_id as "deckId", j.format,
                  j.include_faqs as "includeFaqs", j.captions, j.attempt`,
      [settings.leaseSeconds, settings.perOrganization, room],
    );
  });
}

/** Renews the leases of the exports this instance renders; answers the ids still its own. */
export async function renewExportLeases(
  em: EntityManager,
  jobs: ClaimedExport[],
  leaseSeconds: number,
): Promise<Set<string>> {
  if (jobs.length === 0) return new Set();
  const rows = await em.execute<{ id: string }[]>(
    `update export_job j set locked_until = now() + make_interval(secs => ?)
       from unnest(cast(? as uuid[]), cast(? as int[])) as mine(id, attempt)
      where j.id = mine.id and j.attempt = mine.attempt and j.status = 'processing' and j.deck_id is not null
      returning j.id`,
    [leaseSeconds, arrayLiteral(jobs.map((job) => job.id)), arrayLiteral(jobs.map((job) => job.attempt))],
  );
  return new Set(rows.map((row) => row.id));
}

/**
 * Ends the leases of exports this instance stops working on (it is stopping): still `processing`,
 * but claimable at once by another instance, which renders them again from the start (a render
 * cannot be resumed).
 */
export async function releaseExports(em: EntityManager, jobs: ClaimedExport[]): Promise<void> {
  if (jobs.length === 0) return;
  await em.execute(
    `update export_job j set locked_until = now() - interval '1 second'
       from unnest(cast(? as uuid[]), cast(? as int[])) as mine(id, attempt)
      where j.id = mine.id and j.attempt = mine.attempt and j.status = 'processing'`,
    [arrayLiteral(jobs.map((job) => job.id)), arrayLiteral(jobs.map((job) => job.attempt))],
  );
}

/** A PostgreSQL array literal of uuids or integers read from the database: nothing needs quoting. */
function arrayLiteral(values: (string | number)[]): string {
  return `{${values.join(',')}}`;
}

/**
 * Renders one claimed export: reads the deck (one snapshot), copies what it shows into a work
 * directory of its own, renders it off the event loop (`services.exporter`), stores the file (and an
 * mp4's captions) in the object store, and completes it with its `export.completed` event; or fails
 * it, with the reason and its `export.failed` event, when it cannot be rendered.
 *
 * `signal` aborts when the instance stops (then this throws and the work loop releases the lease)
 * and when `lost()` was called (this call then resolves, having changed nothing); `lost()` is
 * called here too when a progress write finds the export no longer this claim's.
 */
export async function runExport(
  em: EntityManager,
  services: Services,
  job: ClaimedExport,
  control: { signal: AbortSignal; lost: () => void },
): Promise<void> {
  const { signal } = control;
  const { settings, logger, storage } = services;
  const workDir = path.join(settings.exports.workDir, `${job.id}-${job.attempt}`);
  await removeEarlierAttempts(settings.exports.workDir, job.id);
  await mkdir(workDir, { recursive: true });
  const warnings: string[] = [];
  const stored: string[] = [];
  const progress = progressWriter(em, job, control.lost, logger);
  try {
    if (job.attempt > MAX_ATTEMPTS) {
      await finish(em, services, job, {
        status: 'failed',
        error: `The export was started ${MAX_ATTEMPTS} times and never finished`,
        warnings,
      });
      return;
    }
    const read = await readDeck(em, job.deckId, job.includeFaqs);
    // Deleted since it was claimed: the sweep removes the export (its deck is null now).
    if (!read) return;
    if (read.tooManySlides) {
      await finish(em, services, job, {
        status: 'failed',
        error: `The deck has more than ${MAX_EXPORT_SLIDES} slides; an export takes at most ${MAX_EXPORT_SLIDES}`,
        warnings,
      });
      return;
    }
    const snapshot = await copyDeckObjects(services, job.organizationId, read, workDir, warnings, signal);
    progress.write(0, pagesOf(read));
    let rendered: RenderedExport;
    try {
      rendered = await services.exporter.render({
        format: job.format,
        snapshot,
        captions: job.format === 'mp4' && job.captions,
        workDir,
        onProgress: (done, total) => progress.write(done, total),
        signal,
      });
    } catch (error) {
      signal.throwIfAborted();
      if (!(error instanceof ExportFailed)) {
        logger.error({ err: error, exportId: job.id }, 'export: the renderer failed');
      }
      await finish(em, services, job, {
        status: 'failed',
        error: error instanceof ExportFailed ? error.message : RENDER_FAILED,
        warnings,
      });
      return;
    }
    signal.throwIfAborted();
    warnings.push(...rendered.warnings);

    const filename = exportFilename(read.deckName, rendered.extension);
    // The attempt in the key: an instance that lost its claim never touches the file of the one that took it.
    const key = objectKeyFor(job.organizationId, 'exports', `${job.id}-${job.attempt}`, filename);
    const file = { key, filename, contentType: rendered.contentType, ...(await measure(rendered.filePath)) };
    stored.push(key);
    await storage.putFile(key, rendered.filePath, rendered.contentType);
    let captions: { key: string; size: number; sha256: string } | null = null;
    if (rendered.captionsPath && job.format === 'mp4' && job.captions) {
      const captionsKey = objectKeyFor(
        job.organizationId,
        'exports',
        `${job.id}-${job.attempt}`,
        captionsFilename(filename),
      );
      captions = { key: captionsKey, ...(await measure(rendered.captionsPath)) };
      stored.push(captionsKey);
      await storage.putFile(captionsKey, rendered.captionsPath, CAPTIONS_CONTENT_TYPE);
    }
    signal.throwIfAborted();
    await progress.settled();
    const done = await finish(em, services, job, { status: 'completed', file, captions, warnings });
    // Canceled (or taken over) while the file was stored: it is nobody's.
    if (done) stored.length = 0;
  } finally {
    await progress.settled();
    for (const key of stored) {
      await storage.delete(key).catch((error: unknown) => {
        logger.warn({ err: error, key }, 'export: a file of an unfinished export could not be deleted');
      });
    }
    await rm(workDir, { recursive: true, force: true });
  }
}

/** An export's file as measured on disk. */
async function measure(filePath: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  // Streamed in chunks: hashing a large video never holds the event loop for long.
  await pipeline(createReadStream(filePath), hash);
  return { size: (await stat(filePath)).size, sha256: hash.digest('hex') };
}

/** Removes what an earlier attempt at this export left in the work directory (its instance died). */
async function removeEarlierAttempts(root: string, exportId: string): Promise<void> {
  await mkdir(root, { recursive: true });
  for (const name of await readdir(root)) {
    if (name.startsWith(`${exportId}-`)) await rm(path.join(root, name), { recursive: true, force: true });
  }
}

/**
 * The renderer's progress, written to the export as it comes: one write at a time, the latest
 * value written next (a renderer may report faster than the database answers). A write that finds
 * the export no longer this claim's calls `lost`.
 */
function progressWriter(em: EntityManager, job: ClaimedExport, lost: () => void, logger: Services['logger']) {
  let latest: [done: number, total: number] | null = null;
  let writing: Promise<void> | null = null;
  const flush = async () => {
    while (latest) {
      const [done, total] = latest;
      latest = null;
      try {
        const rows = await em.execute<{ id: string }[]>(
          `update export_job set progress_done = ?, progress_total = ?
            where id = ? and attempt = ? and status = 'processing' and deck_id is not null returning id`,
          [done, total, job.id, job.attempt],
        );
        if (rows.length === 0) lost();
      } catch (error) {
        // The lease's renewal says whether the export is still this claim's; progress can wait.
        logger.warn({ err: error, exportId: job.id }, 'export: progress could not be written');
      }
    }
    writing = null;
  };
  return {
    write(done: number, total: number) {
      latest = [Math.max(0, Math.floor(done)), Math.max(0, Math.floor(total))];
      writing ??= flush();
    },
    settled: () => writing ?? Promise.resolve(),
  };
}

type Outcome =
  | { status: 'failed'; error: string; warnings: string[] }
  | {
      status: 'completed';
      file: { key: string; filename: string; contentType: string; size: number; sha256: string };
      captions: { key: string; size: number; sha256: string } | null;
      warnings: string[];
    };

/**
 * Ends the export with its outcome and its event, in one transaction, if it is still this claim's
 * (else nothing changes: it was canceled, its deck deleted, or another instance took it over).
 * A completed export's file is kept EXPORT_RETENTION_DAYS from now. Answers whether it was ended.
 */
async function finish(
  em: EntityManager,
  services: Services,
  job: ClaimedExport,
  outcome: Outcome,
): Promise<boolean> {
  const warnings = boundedWarnings(outcome.warnings);
  return em.transactional(async (tx) => {
    const completed = outcome.status === 'completed' ? outcome : null;
    const rows = await tx.execute<{ id: string }[]>(
      `update export_job
          set status = ?, error = ?, warnings = ?::jsonb, locked_until = null, completed_at = now(),
              progress_done = greatest(progress_done, progress_total),
              expires_at = case when ? then now() + make_interval(days => ?) else expires_at end,
              file_key = ?, file_size = ?, file_sha256 = ?, file_content_type = ?, file_name = ?,
              captions_key = ?, captions_size = ?, captions_sha256 = ?
        where id = ? and attempt = ? and status = 'processing' and deck_id is not null
        returning id`,
      [
        outcome.status,
        outcome.status === 'failed' ? outcome.error : null,
        JSON.stringify(warnings),
        completed !== null,
        services.settings.exports.retentionDays,
        completed?.file.key ?? null,
        completed?.file.size ?? null,
        completed?.file.sha256 ?? null,
        completed?.file.contentType ?? null,
        completed?.file.filename ?? null,
        completed?.captions?.key ?? null,
        completed?.captions?.size ?? null,
        completed?.captions?.sha256 ?? null,
        job.id,
        job.attempt,
      ],
    );
    if (rows.length === 0) return false;
    const row = await tx.findOneOrFail(ExportJob, job.id, { refresh: true });
    const payload = toExportEventOutput(row, services);
    recordEvent(
      tx,
      { organizationId: job.organizationId, actor: SYSTEM_ACTOR },
      outcome.status === 'completed' ? 'export.completed' : 'export.failed',
      { aggregateId: job.id, deckId: job.deckId, payload },
    );
    return true;
  });
}

/** At most MAX_WARNINGS warnings of at most MAX_WARNING_CHARS each; the last says how many more there were. */
export function boundedWarnings(warnings: string[]): string[] {
  const cut = (warning: string) =>
    warning.length > MAX_WARNING_CHARS ? `${warning.slice(0, MAX_WARNING_CHARS - 1)}…` : warning;
  if (warnings.length <= MAX_WARNINGS) return warnings.map(cut);
  return [
    ...warnings.slice(0, MAX_WARNINGS - 1).map(cut),
    `… and ${warnings.length - MAX_WARNINGS + 1} more warnings`,
  ];
}
