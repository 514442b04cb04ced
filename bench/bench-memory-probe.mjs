/**
 * JavaScript, not TypeScript: a .ts file would load Node's type stripping into the process it
 * measures (~30 MB that `npm start`, running dist/, does not have).
 *
 * Loaded into bench:memory's service (`node --expose-gc --import`): each `'memory'` message is
 * answered with the process's resident set size as it stands, then the heap after a full
 * collection (the live data, whatever the collector's schedule).
 */
import { getHeapSpaceStatistics } from 'node:v8';

process.on('message', (message) => {
  if (message !== 'memory') return;
  const rss = process.memoryUsage().rss;
  globalThis.gc?.();
  const after = process.memoryUsage();
  const youngGeneration = getHeapSpaceStatistics()
    .filter((space) => space.space_name === 'new_space')
    .reduce((total, space) => total + space.space_size, 0);
  process.send?.({
    rss,
    heapUsed: after.heapUsed,
    heapTotal: after.heapTotal,
    external: after.external,
    youngGeneration,
  });
});
// The channel must not keep a server alive that was told to stop.
process.channel?.unref();
