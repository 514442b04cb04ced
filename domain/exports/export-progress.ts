import { endOnAbort, liveEventsOf, type StreamContext } from '../events/live-events.ts';
import type { ExportOutput } from './export-output.ts';
import { getExport } from './exports.ts';

const FINAL: ReadonlySet<ExportOutput['status']> = new Set(['completed', 'failed', 'canceled']);

/**
 * `exports.onProgress`: the export as `GET /exports/{id}` answers it, at once and after every
 * change of it (each change of its row notifies the instances, migration `export_jobs`), until it
 * has ended (completed, failed or canceled). 404 for an export the caller cannot see. Counted
 * against the stream caps like `generation.onProgress`.
 */
export async function followExport(
  ctx: StreamContext,
  exportId: string,
  signal?: AbortSignal,
): Promise<AsyncIterable<ExportOutput>> {
  // Following before the first read: a change between the two is not missed.
  const follower = await liveEventsOf(ctx).openProgress(
    { auth: ctx.auth, sessionTokenHash: ctx.sessionTokenHash, disconnect: ctx.disconnect },
    'export',
    exportId,
  );
  // A fresh unit of work for each read: the export is read again, not taken from an identity map.
  const read = () => getExport({ ...ctx, em: ctx.em.fork() }, exportId);
  let current: ExportOutput;
  try {
    current = await read();
  } catch (error) {
    follower.end('closed');
    throw error;
  }
  endOnAbort(signal, follower);
  // Its file's signed address changes with every read, `updatedAt` with every lease renewal: a
  // change is a change of anything else.
  const unsigned = (output: ExportOutput) =>
    JSON.stringify({
      ...output,
      updatedAt: null,
      file: output.file && { ...output.file, url: null },
      captionsFile: output.captionsFile && { ...output.captionsFile, url: null },
    });
  return (async function* () {
    try {
      yield current;
      while (!FINAL.has(current.status) && (await follower.next())) {
        const now = await read();
        if (unsigned(now) === unsigned(current)) continue;
        current = now;
        yield current;
      }
    } finally {
      follower.end('closed');
    }
  })();
}
