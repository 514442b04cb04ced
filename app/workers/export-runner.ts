import type { MikroORM } from '@mikro-orm/postgresql';
import {
  type ClaimedExport,
  claimExports,
  releaseExports,
  renewExportLeases,
  runExport,
} from '../../domain/exports/export-work.ts';
import type { Services } from '../../domain/services.ts';
import type { AppConfig } from '../config.ts';
import { WorkLoop } from './work-loop.ts';

/** Hears how long each export that ended here took, from its claim (the metrics' histogram). */
export type ExportObserver = (format: ClaimedExport['format'], seconds: number) => void;

/**
 * The export worker: the work loop around `domain/exports/export-work.ts`, at most
 * EXPORT_CONCURRENCY exports at once on this instance (each rendering in a child process of its
 * own, adapters/export/deck-exporter.ts), claiming no more than it runs. Every
 * EXPORT_POLL_INTERVAL_MS (and at once when a cancel was committed here) it renews the leases of
 * the exports it renders; one that is no longer its own (canceled, its deck deleted, or taken over
 * by another instance after this one could not renew in time) is aborted and leaves nothing behind.
 */
export function createExportRunner(
  orm: MikroORM,
  services: Services,
  config: AppConfig,
  observe?: ExportObserver,
) {
  const { leaseSeconds, perOrganization, pollIntervalMs, concurrency } = config.exports;
  /** The exports rendering here, and what aborts each when it is no longer this instance's. */
  const rendering = new Map<ClaimedExport, AbortController>();
  let renewal: NodeJS.Timeout | undefined;
  let renewing: Promise<void> | undefined;

  const renew = () => {
    if (renewing || rendering.size === 0) return;
    const jobs = [...rendering.keys()];
    renewing = renewExportLeases(orm.em.fork(), jobs, leaseSeconds)
      .then((ours) => {
        for (const job of jobs) if (!ours.has(job.id)) rendering.get(job)?.abort(new Error('export lost'));
      })
      .catch((error: unknown) => {
        // Not renewed: if this lasts past the lease, another instance takes the export over, and the
        // first renewal that gets through aborts it here.
        services.logger.warn({ err: error }, 'export leases could not be renewed');
      })
      .finally(() => {
        renewing = undefined;
      });
  };

  const loop = new WorkLoop<ClaimedExport>({
    name: 'exports',
    pollIntervalMs,
    concurrency,
    claimOnlyWhatRuns: true,
    logger: services.logger,
    async claim(room) {
      const jobs = await claimExports(orm.em.fork(), room, { leaseSeconds, perOrganization });
      for (const job of jobs) {
        services.logger.info(
          { exportId: job.id, deckId: job.deckId, format: job.format, attempt: job.attempt },
          'export claimed',
        );
      }
      return jobs;
    },
    async run(job, stopping) {
      const lost = new AbortController();
      rendering.set(job, lost);
      const signal = AbortSignal.any([stopping, lost.signal]);
      const started = performance.now();
      try {
        await runExport(orm.em.fork(), services, job, {
          signal,
          lost: () => lost.abort(new Error('export lost')),
        });
        const seconds = (performance.now() - started) / 1000;
        observe?.(job.format, seconds);
        services.logger.info(
          { exportId: job.id, attempt: job.attempt, ms: Math.round(seconds * 1000) },
          'export ended',
        );
      } catch (error) {
        // Canceled or taken over: nothing to record, the export is someone else's now.
        if (lost.signal.aborted && !stopping.aborted) {
          services.logger.info(
            { exportId: job.id, attempt: job.attempt },
            'export stopped: no longer this instance’s',
          );
          return;
        }
        throw error;
      } finally {
        rendering.delete(job);
      }
    },
    release: (jobs) => releaseExports(orm.em.fork(), jobs),
  });
  return {
    start() {
      loop.start();
      renewal = setInterval(renew, pollIntervalMs);
      renewal.unref();
    },
    nudge() {
      loop.nudge();
      renew();
    },
    async stop(timeoutMs?: number) {
      await loop.stop(timeoutMs);
      clearInterval(renewal);
      await renewing;
      await services.exporter.close?.();
    },
  };
}
