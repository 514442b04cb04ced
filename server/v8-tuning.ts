import v8 from 'node:v8';

/**
 * V8 settings for a request/response server, applied by `server/main.ts` before any other
 * module is evaluated (node:v8 takes them at run time; the flag is read at each collection).
 *
 * No allocation-site pretenuring: under load V8 saw the rows of requests still in flight survive
 * young collections, decided their allocation sites were long-lived and allocated them straight
 * into old space, where each one, dead milliseconds later, kept everything it pointed to alive
 * through every young collection until the next full one. Measured with `bench:http` on the
 * 50-slide list: 7.9 MB promoted and 7 ms paused per young collection, p99 74 ms; without it
 * 0.1 MB, 1.5 ms, p99 42 ms (`docs/decisions.md`, "Where the tail came from").
 */
v8.setFlagsFromString('--no-allocation-site-pretenuring');
