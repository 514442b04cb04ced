/**
 * `npm run bench:streams`: BENCH_STREAMS (1,000) live event streams open on one instance
 * (`GET /api/notifications/events/stream`), held by a client process of their own, while a writer
 * creates decks through the API at BENCH_RATE events a second for BENCH_SECONDS. Prints the
 * delivery latency from commit to client (p50, p99: from the event's `occurredAt`, taken just before
 * its commit, to its arrival on each stream; one clock, one machine), the events delivered a
 * second, the service's RSS per idle open stream, and the statements the live machinery sent per
 * event (its one reader's, whatever the number of streams). The last line is for scripts:
 * `streams: <n> open, p99 <ms> ms, <kb> KB per stream, <s> statements per event`.
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { signedInCookie, startScratchApp, summarise } from './bench-setup.ts';

/** The client process: holds the streams, reports each arrival's latency. */
if (process.argv[2] === '--clients') {
  const [url, cookie, count] = [process.argv[3]!, process.argv[4]!, Number(process.argv[5])];
  const latencies: number[] = [];
  let open = 0;
  const streams: http.ClientRequest[] = [];
  for (let n = 0; n < count; n++) {
    const request = http.get(`${url}/api/notifications/events/stream`, { headers: { cookie }, agent: false });
    streams.push(request);
    request.on('response', (response) => {
      if (response.statusCode !== 200) throw new Error(`stream ${n}: ${response.statusCode}`);
      open += 1;
      if (open === count) process.send!({ open });
      let rest = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        const now = Date.now();
        rest += chunk;
        let end = rest.indexOf('\n\n');
        while (end !== -1) {
          const message = rest.slice(0, end);
          rest = rest.slice(end + 2);
          const at = /"occurredAt":"([^"]+)"/.exec(message);
          if (at) latencies.push(now - Date.parse(at[1]!));
          end = rest.indexOf('\n\n');
        }
      });
    });
  }
  process.on('message', (message: { report?: boolean }) => {
    if (!message.report) return;
    process.send!({ latencies }, () => {
      for (const request of streams) request.destroy();
      process.exit(0);
    });
  });
} else {
  const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
  const RATE = Number(process.env.BENCH_RATE ?? 20);
  const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
  const { app, close } = await startScratchApp({
    STREAMS_PER_CALLER: String(STREAMS),
    // One caller opens every stream: its request limit must not refuse them.
    RATE_LIMIT_PER_MINUTE: '1000000000',
  });
  try {
    const cookie = await signedInCookie(app, 'Streams');
    const post = async (name: string) => {
      const response = await fetch(`${app.url}/api/decks`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      if (response.status !== 201) throw new Error(`POST /decks: ${response.status}`);
    };
    // Warm: the paths the run takes, before the baseline is read.
    for (let n = 0; n < 20; n++) await post(`warm ${n}`);
    const live = app.edge.liveEvents!;
    // Collected before each reading: what is held, not what a burst of requests left to collect.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const rssBefore = process.memoryUsage().rss;

    const clients = fork(fileURLToPath(import.meta.url), ['--clients', app.url, cookie, String(STREAMS)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const message = <T>() => new Promise<T>((resolve) => clients.once('message', (m) => resolve(m as T)));
    await message<{ open: number }>();
    // Idle: every stream open, nothing sent yet.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    gc();
    const rssOpen = process.memoryUsage().rss;
    const heapOpen = process.memoryUsage().heapUsed;
    const kbPerStream = (rssOpen - rssBefore) / 1024 / STREAMS;
    console.log(
      `${live.openStreams} streams open: RSS ${(rssBefore / 2 ** 20).toFixed(0)} → ${(rssOpen / 2 ** 20).toFixed(0)} MB, ${kbPerStream.toFixed(1)} KB per stream; heap ${((heapOpen - heapBefore) / 1024 / STREAMS).toFixed(1)} KB per stream`,
    );

    const statementsBefore = live.statements;
    const started = performance.now();
    let written = 0;
    while (written < RATE * SECONDS) {
      const due = started + (written * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      await post(`event ${written}`);
      written += 1;
    }
    // The last events' deliveries: a second is their promise.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const elapsed = (performance.now() - started) / 1000;
    const statements = live.statements - statementsBefore;
    const report = message<{ latencies: number[] }>();
    clients.send({ report: true });
    const { latencies } = await report;
    const { median, p95 } = summarise(latencies);
    const sorted = [...latencies].sort((a, b) => a - b);
    const p99 = sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? Number.NaN;
    const expected = written * STREAMS;
    console.log(
      `${written} events at ${RATE}/s to ${STREAMS} streams: ${latencies.length} of ${expected} delivered, ` +
        `${Math.round(latencies.length / elapsed)} events/s; latency commit → client ms: p50 ${median}, p95 ${p95}, p99 ${p99}`,
    );
    const perEvent = statements / written;
    console.log(`live statements: ${statements} for ${written} events`);
    console.log(
      `streams: ${STREAMS} open, p99 ${p99} ms, ${kbPerStream.toFixed(1)} KB per stream, ${perEvent.toFixed(2)} statements per event`,
    );
    if (latencies.length !== expected) process.exitCode = 1;
  } finally {
    await close();
  }
}
