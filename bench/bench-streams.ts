/**
 * `npm run bench:streams`: BENCH_STREAMS (1,000) live event streams open on one instance
 * (`GET /api/notifications/events/stream`), held by a client process of their own, while a writer
 * creates decks through the API at BENCH_RATE events a second for BENCH_SECONDS. Prints the
 * delivery latency from commit to client (p50, p99: from the event's `occurredAt`, taken just before
 * its commit, to its arrival on each stream; one clock, one machine), the events delivered a
 * second, the service's memory per idle open stream, and the statements the live machinery sent per
 * event (its one reader's, whatever the number of streams). The last line is for scripts:
 * `streams: <n> open, p99 <ms> ms, <kb> KB per stream, <s> statements per event`.
 *
 * Memory per stream is the marginal cost: RSS and heap after a full collection, read after each of
 * BENCH_BATCHES (5) batches of N streams (each another caller's: STREAMS_PER_CALLER is at most
 * 1,000); the least-squares slope of the readings from 2N streams on, per stream. What the first
 * streams also grow once (modules, V8's young generation, malloc's arenas) is in the first batch's
 * figure, printed too, not in the slope; and the young generation has one size
 * (package.json: 16 MB semi-spaces), so that its growth with the allocation rate, empty after a
 * collection, is not counted as streams'. BENCH_BARE=1 measures the same way a bare Node `http`
 * server holding the same answers (no events): the floor of the machine.
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { signedInCookie, startScratchApp, summarise } from './bench-setup.ts';

const STREAM_PATH = '/api/notifications/events/stream';

/** The client process: opens batches of streams when told, reports each arrival's latency. */
if (process.argv[2] === '--clients') {
  const url = process.argv[3]!;
  const latencies: number[] = [];
  const batches = new Map<string, http.ClientRequest[]>();
  const openBatch = (batch: string, cookie: string, count: number) => {
    let open = 0;
    const streams: http.ClientRequest[] = [];
    batches.set(batch, streams);
    for (let n = 0; n < count; n++) {
      const request = http.get(`${url}${STREAM_PATH}`, { headers: { cookie }, agent: false });
      streams.push(request);
      request.on('response', (response) => {
        if (response.statusCode !== 200) throw new Error(`stream ${n}: ${response.statusCode}`);
        open += 1;
        if (open === count) process.send!({ open: batch });
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
  };
  process.on(
    'message',
    (message: { open?: string; cookie?: string; count?: number; close?: string; report?: boolean }) => {
      if (message.open) openBatch(message.open, message.cookie!, message.count!);
      if (message.close) {
        for (const request of batches.get(message.close) ?? []) request.destroy();
        batches.delete(message.close);
        process.send!({ closed: message.close });
      }
      if (message.report) {
        process.send!({ latencies }, () => {
          for (const streams of batches.values()) for (const request of streams) request.destroy();
          process.exit(0);
        });
      }
    },
  );
} else {
  const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
  const RATE = Number(process.env.BENCH_RATE ?? 20);
  const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
  const BARE = process.env.BENCH_BARE === '1';
  const BATCHES = Number(process.env.BENCH_BATCHES ?? 5);
  if (!(BATCHES >= 4)) throw new Error('BENCH_BATCHES: at least 4 (the slope is fitted from the second on)');

  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  /** After a full collection (twice: what the first frees, weak callbacks, is collected by the second). */
  const memory = async () => {
    // Idle: every stream open, nothing sent, what their opening left to collect is garbage.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    gc();
    gc();
    const { rss, heapUsed } = process.memoryUsage();
    return { rss, heap: heapUsed };
  };
  /** Least-squares slope of readings taken one batch apart: bytes per batch. */
  const slope = (values: number[]) => {
    const mean = (values.length - 1) / 2;
    const average = values.reduce((sum, value) => sum + value, 0) / values.length;
    let [covariance, variance] = [0, 0];
    for (const [n, value] of values.entries()) {
      covariance += (n - mean) * (value - average);
      variance += (n - mean) ** 2;
    }
    return covariance / variance;
  };
  const kb = (bytes: number) => (bytes / 1024 / STREAMS).toFixed(1);
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

  /**
   * Opens BATCHES batches of N streams, each another caller's (one caller may hold at most 1,000):
   * the memory before and after each. Per stream: the slope of the readings from 2N streams on.
   */
  const measureIdle = async (
    url: string,
    cookies: string[],
    openStreams: () => number,
  ): Promise<{ clients: ReturnType<typeof fork>; marginal: number; heap: number }> => {
    const clients = fork(fileURLToPath(import.meta.url), ['--clients', url], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const reply = (key: string, batch: string) =>
      new Promise<void>((resolve) => {
        const listener = (m: Record<string, unknown>) => {
          if (m[key] !== batch) return;
          clients.off('message', listener);
          resolve();
        };
        clients.on('message', listener);
      });
    const readings = [await memory()];
    for (const [n, cookie] of cookies.entries()) {
      const opened = reply('open', String(n));
      clients.send({ open: String(n), cookie, count: STREAMS });
      await opened;
      readings.push(await memory());
      const [from, to] = [readings.at(-2)!, readings.at(-1)!];
      console.log(
        `${n * STREAMS} → ${openStreams()} streams: RSS ${mb(from.rss)} → ${mb(to.rss)} MB, ${kb(to.rss - from.rss)} KB per stream; heap ${kb(to.heap - from.heap)} KB per stream`,
      );
    }
    for (let n = 1; n < cookies.length; n++) {
      const closed = reply('closed', String(n));
      clients.send({ close: String(n) });
      await closed;
    }
    // From 2N streams on: the first batch grows what grows once, and what the second holds partly
    // fills the room the first one's transient garbage left (it reads low).
    const fitted = readings.slice(2);
    return {
      clients,
      marginal: slope(fitted.map((reading) => reading.rss)) / 1024 / STREAMS,
      heap: slope(fitted.map((reading) => reading.heap)) / 1024 / STREAMS,
    };
  };

  if (BARE) {
    // The floor: Node's own server holding the same answers, one keep-alive timer for all.
    const open = new Set<http.ServerResponse>();
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' });
      res.write(': stream open\n\n');
      open.add(res);
      res.once('close', () => open.delete(res));
    });
    const keepAlive = setInterval(() => {
      for (const res of open) res.write(': keep-alive\n\n');
    }, 15_000);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const { clients, marginal, heap } = await measureIdle(
      `http://127.0.0.1:${port}`,
      Array.from({ length: BATCHES }, () => ''),
      () => open.size,
    );
    clients.kill();
    clearInterval(keepAlive);
    server.closeAllConnections();
    server.close();
    console.log(
      `bare, idle, ${2 * STREAMS} → ${BATCHES * STREAMS} streams: ${marginal.toFixed(1)} KB RSS per stream (heap ${heap.toFixed(1)})`,
    );
  } else {
    const { app, close } = await startScratchApp({
      STREAMS_PER_CALLER: String(STREAMS),
      // Each batch another organization's; every stream on this one instance.
      STREAMS_PER_ORGANIZATION: String(STREAMS),
      STREAMS_PER_INSTANCE: String(BATCHES * STREAMS + 1),
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
      const cookies = [cookie];
      for (let n = 1; n < BATCHES; n++) cookies.push(await signedInCookie(app, `Streams ${n}`));
      const { clients, marginal, heap } = await measureIdle(app.url, cookies, () => live.openStreams);
      console.log(
        `idle, ${2 * STREAMS} → ${BATCHES * STREAMS} streams: ${marginal.toFixed(1)} KB RSS per stream (heap ${heap.toFixed(1)})`,
      );
      const message = <T>() => new Promise<T>((resolve) => clients.once('message', (m) => resolve(m as T)));

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
        `streams: ${STREAMS} open, p99 ${p99} ms, ${marginal.toFixed(1)} KB per stream, ${perEvent.toFixed(2)} statements per event`,
      );
      if (latencies.length !== expected) process.exitCode = 1;
    } finally {
      await close();
    }
  }
}
