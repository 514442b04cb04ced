import { endOnAbort, liveEventsOf, type StreamContext } from '../events/live-events.ts';
import { getGenerationStatus } from './generation.ts';
import type { JobOutput } from './job-output.ts';

const FINAL: ReadonlySet<JobOutput['status']> = new Set(['completed', 'failed']);

/**
 * `generation.onProgress`: the deck's latest job as `getGenerationStatus` answers it, at once and
 * after every change of it (each change of the job's row notifies the instances, migration
 * `live-events`), until it is completed or failed. 404 when the deck has no job.
 */
export async function followProgress(
  ctx: StreamContext,
  deckId: string,
  signal?: AbortSignal,
): Promise<AsyncIterable<JobOutput>> {
  // Following before the first read: a change between the two is not missed.
  const follower = await liveEventsOf(ctx).openProgress(
    { auth: ctx.auth, sessionTokenHash: ctx.sessionTokenHash, disconnect: ctx.disconnect },
    'generation',
    deckId,
  );
  // A fresh unit of work for each read: the job is read again, not taken from an identity map.
  const read = () => getGenerationStatus({ ...ctx, em: ctx.em.fork() }, deckId);
  let status: JobOutput;
  try {
    status = await read();
  } catch (error) {
    follower.end('closed');
    throw error;
  }
  endOnAbort(signal, follower);
  return (async function* () {
    try {
      yield status;
      while (!FINAL.has(status.status) && (await follower.next())) {
        const now = await read();
        if (JSON.stringify(now) === JSON.stringify(status)) continue;
        status = now;
        yield status;
      }
    } finally {
      follower.end('closed');
    }
  })();
}
