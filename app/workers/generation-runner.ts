import type { MikroORM } from '@mikro-orm/postgresql';
import { type ClaimedJob, claimJobs, narrateDeck, releaseJobs } from '../../domain/generation/narration.ts';
import type { Services } from '../../domain/services.ts';
import type { AppConfig } from '../config.ts';
import { WorkLoop } from './work-loop.ts';

/** The narration worker: the work loop around `domain/generation/narration.ts`, one EntityManager per job. */
export function createGenerationRunner(orm: MikroORM, services: Services, config: AppConfig) {
  const loop = new WorkLoop<ClaimedJob>({
    name: 'generation',
    pollIntervalMs: config.generation.pollIntervalMs,
    concurrency: config.generation.concurrency,
    logger: services.logger,
    claim: (room) => claimJobs(orm.em.fork(), room),
    run: (job, signal) => narrateDeck(orm.em.fork(), services, job, signal),
    release: (jobs) => releaseJobs(orm.em.fork(), jobs),
  });
  return {
    start: () => loop.start(),
    nudge: () => loop.nudge(),
    stop: (timeoutMs?: number) => loop.stop(timeoutMs),
  };
}
