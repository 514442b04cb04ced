import type { MikroORM } from '@mikro-orm/postgresql';
import { type ClaimedJob, claimJobs, narrateDeck, releaseJobs } from '../../domain/generation/narration.ts';
import type { Services } from '../../domain/services.ts';
import type { AppConfig } from '../config.ts';
import { WorkLoop } from './work-loop.ts';

/** The narration worker: the work loop around `domain/generation/narration.ts`, one EntityManager per job. */
export function createGenerationRunner(orm: MikroORM, services: Services, config: AppConfig) {
  const { leaseSeconds } = config.generation;
  const loop = new WorkLoop<ClaimedJob>({
    name: 'generation',
    pollIntervalMs: config.generation.pollIntervalMs,
    concurrency: config.generation.concurrency,
    logger: services.logger,
    async claim(room) {
      const jobs = await claimJobs(orm.em.fork(), room, leaseSeconds);
      // Which instance works on which job, from which slide (a dead one's job goes on elsewhere).
      for (const job of jobs) {
        services.logger.info(
          { jobId: job.id, deckId: job.deckId, fromSlide: job.currentSlide },
          'generation job claimed',
        );
      }
      return jobs;
    },
    run: (job, signal) => narrateDeck(orm.em.fork(), services, job, signal, leaseSeconds),
    release: (jobs) => releaseJobs(orm.em.fork(), jobs),
  });
  return {
    start: () => loop.start(),
    nudge: () => loop.nudge(),
    stop: (timeoutMs?: number) => loop.stop(timeoutMs),
  };
}
