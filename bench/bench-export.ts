/**
 * `npm run bench:export`: deck export (issue 39) on the real service, started as `npm start` starts
 * it, on a database of the script's own. Over HTTP, as a user would: a deck of BENCH_SLIDES (20)
 * slides with branding (a logo), two hero images and narration scripts of about 15 s each (some 5
 * minutes of audio, spoken by the deck's narration job, `POST /api/decks/{deckId}/generate`); then
 * each format exported BENCH_RUNS (5) times, one at a time, each timed from its POST to the GET that
 * answers `completed` (polled every POLL_MS), its file downloaded once to check it. Then three MP4
 * exports at once (the heaviest: three renders for the whole time) while a loop of `/healthz`
 * requests, one after another, is timed.
 *
 * Memory: the RSS of the service's process and every process under it (each export's render
 * process, its ffmpeg) summed, sampled from /proc every 50 ms, less what it was before the first
 * export; the service's process alone is reported beside. The figure of the last line is one
 * export at a time; the three at once are reported on their own line. The service runs with
 * EXPORT_CONCURRENCY=3 and EXPORTS_PER_ORGANIZATION=3 (unless set), so that three can run at once.
 * Last line, for scripts: `export: pptx <ms> ms, pdf <ms> ms, mp4 <ms> ms (p95), peak +<MB> MB`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { residentBytes, treeResidentBytes } from '../adapters/process-memory.ts';
import { ACME_BRANDING, videoSeconds } from '../test/helpers/export-deck.ts';
import { png } from '../test/helpers/files.ts';
import { freePort, openBenchWorkspace, ROOT, signUp, startCommand, waitForHttp } from './bench-service.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SLIDES = Number(process.env.BENCH_SLIDES ?? 20);
const ALL_FORMATS = ['pptx', 'pdf', 'mp4'] as const;
type Format = (typeof ALL_FORMATS)[number];
/** BENCH_FORMATS (`mp4`, `pdf,pptx`, …): the formats timed, in this order; all three unless set. */
const FORMATS = ALL_FORMATS.filter((f) => (process.env.BENCH_FORMATS ?? f).split(',').includes(f));
/** How often an export is asked after: the resolution of its time. */
const POLL_MS = 50;
const GOALS = { pptx: 2000, pdf: 3000, mp4: 30_000, peakMb: 300, healthzMs: 50 };
/** About 44 words: some 15 s of the built-in voice. */
const SCRIPT =
  'Our platform lets every sales rep present a polished deck in minutes. Answers are spoken in a clear and natural voice, while the team sees which questions prospects ask, which slides they linger on, and when a deal is ready to close.';

interface Export {
  id: string;
  status: 'pending' | 'processing' | 'completed' | 'failed' | 'canceled';
  error: string | null;
  file: { url: string; sizeBytes: number } | null;
}
/** The service over HTTP, signed in. */
interface Api {
  call(method: string, route: string, body?: unknown): Promise<{ id: string } & Record<string, unknown>>;
  /** Uploads an image (`POST /api/images`, multipart); its object key. */
  upload(name: string, bytes: Buffer): Promise<string>;
}

const workspace = await openBenchWorkspace('export');
let service: ChildProcess | undefined;
try {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const command = await startCommand();
  const env = {
    ...workspace.serviceEnv,
    PORT: String(port),
    LOG_LEVEL: 'error',
    EXPORT_CONCURRENCY: process.env.EXPORT_CONCURRENCY ?? '3',
    EXPORTS_PER_ORGANIZATION: process.env.EXPORTS_PER_ORGANIZATION ?? '3',
  };
  service = spawn(process.execPath, command, {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const pid = service.pid!;
  await waitForHttp(`${url}/readyz`, service);
  console.log(
    `bench:export — \`node ${command.join(' ')}\` (npm start), ${SLIDES} slides, ${RUNS} runs a format, EXPORT_CONCURRENCY=${env.EXPORT_CONCURRENCY}, EXPORTS_PER_ORGANIZATION=${env.EXPORTS_PER_ORGANIZATION}`,
  );
  const email = 'export@bench.test';
  const cookie = await signUp(workspace.serviceEnv, url, {
    organization: 'Export',
    email: email,
    password: 'bench-password',
  });
  const api = client(url, cookie);

  let started = performance.now();
  const deckId = await narratedDeck(api);
  console.log(`deck of ${SLIDES} slides narrated in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const baseline = await treeResidentBytes(pid);
  const memory = sampleMemory(pid);
  const p95s: Partial<Record<Format, number>> = {};
  for (const format of FORMATS) {
    const formatMemory = sampleMemory(pid);
    const timings: number[] = [];
    for (let n = 0; n < RUNS; n++) {
      started = performance.now();
      const done = await completed(api, (await api.call('POST', `/decks/${deckId}/exports`, { format })).id);
      timings.push(performance.now() - started);
      if (n === 0) await check(done, format);
    }
    const p95 = percentile(timings, 0.95);
    p95s[format] = p95;
    const peak = await formatMemory.stop();
    console.log(
      `${format}: p50 ${percentile(timings, 0.5).toFixed(0)} ms, p95 ${p95.toFixed(0)} ms ${goal(p95, GOALS[format], 'ms')}; runs: ${timings.map((ms) => ms.toFixed(0)).join(', ')} ms; peak RSS added +${mb(peak.tree - baseline)} MB`,
    );
  }
  const oneAtATime = await memory.stop();
  const peakMb = (oneAtATime.tree - baseline) / 1_048_576;
  console.log(
    `peak RSS added, one export at a time: +${peakMb.toFixed(0)} MB over ${mb(baseline)} MB ${goal(peakMb, GOALS.peakMb, 'MB')} (the service's process alone +${mb(oneAtATime.alone - baseline)} MB); after them +${mb((await treeResidentBytes(pid)) - baseline)} MB`,
  );

  const threeMemory = sampleMemory(pid);
  const three = Promise.all(
    [1, 2, 3].map(async () =>
      completed(api, (await api.call('POST', `/decks/${deckId}/exports`, { format: 'mp4' })).id),
    ),
  );
  const [healthz] = await Promise.all([healthzUntil(url, three), three]);
  const atOnce = await threeMemory.stop();
  const p99 = percentile(healthz, 0.99);
  console.log(
    `three mp4 exports at once: peak RSS added +${mb(atOnce.tree - baseline)} MB (the service's process alone +${mb(atOnce.alone - baseline)} MB)`,
  );
  console.log(
    `/healthz while three exports run: p50 ${percentile(healthz, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms over ${healthz.length} requests ${goal(p99, GOALS.healthzMs, 'ms')}`,
  );
  console.log(
    `export: ${ALL_FORMATS.map((f) => `${f} ${p95s[f]?.toFixed(0) ?? '-'} ms`).join(', ')} (p95), peak +${peakMb.toFixed(0)} MB`,
  );
} finally {
  service?.kill('SIGTERM');
  if (service && service.exitCode === null) await new Promise((resolve) => service!.once('exit', resolve));
  await workspace.close();
}

/** Requests with the session cookie; anything but 2xx throws. */
function client(url: string, cookie: string): Api {
  const send = async (method: string, route: string, headers: Record<string, string>, body?: BodyInit) => {
    const response = await fetch(`${url}/api${route}`, { method, headers: { cookie, ...headers }, body });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text}`);
    return JSON.parse(text);
  };
  return {
    call: (method, route, body) =>
      body === undefined
        ? send(method, route, {})
        : send(method, route, { 'content-type': 'application/json' }, JSON.stringify(body)),
    async upload(name, bytes) {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), name);
      return (await send('POST', '/images', {}, form)).objectKey;
    },
  };
}

/**
 * The deck: branding with a logo, SLIDES slides with scripts (two of them with a hero image), and
 * its narration job run to `completed`.
 */
async function narratedDeck(api: Api): Promise<string> {
  const logo = await api.upload('logo.png', png(400, 120));
  const heroes = [
    await api.upload('hero-1.png', png(1280, 720)),
    await api.upload('hero-2.png', png(1920, 1080)),
  ];
  const deck = await api.call('POST', '/decks', { name: 'Export benchmark' });
  await api.call('PUT', `/decks/${deck.id}/branding`, { ...ACME_BRANDING, logo });
  const heroAt = new Map([
    [1, heroes[0]],
    [Math.floor(SLIDES / 2) + 1, heroes[1]],
  ]);
  for (let n = 1; n <= SLIDES; n++) {
    await api.call('POST', `/decks/${deck.id}/slides`, {
      title: `Why teams choose us, reason ${n}`,
      bullets: ['Decks ready in minutes', 'Narration in every voice', 'Answers while you sleep'],
      slideContext: 'Customers ship twice as fast.',
      narrationScript: `Reason ${n}. ${SCRIPT}`,
      heroImg: heroAt.get(n) ?? null,
    });
  }
  await api.call('POST', `/decks/${deck.id}/generate`, {});
  await waitFor(async () => {
    const { status, error } = await api.call('GET', `/decks/${deck.id}/generate/status`);
    if (status === 'failed') throw new Error(`narration failed: ${String(error)}`);
    return status === 'completed';
  });
  return deck.id;
}

/** Follows `GET /api/exports/{id}` until it is completed (anything else that ends it throws). */
function completed(api: Api, exportId: string): Promise<Export> {
  return waitFor(async () => {
    const answer = (await api.call('GET', `/exports/${exportId}`)) as unknown as Export;
    if (answer.status === 'failed' || answer.status === 'canceled')
      throw new Error(`export ${exportId} ${answer.status}: ${answer.error}`);
    return answer.status === 'completed' ? answer : undefined;
  });
}

/** Downloads the export's file: as long as it says, not empty; for a video, its length (ffprobe). */
async function check(done: Export, format: Format): Promise<void> {
  const response = await fetch(done.file!.url);
  const bytes = Buffer.from(await response.arrayBuffer());
  if (!response.ok || bytes.length === 0 || bytes.length !== done.file!.sizeBytes)
    throw new Error(
      `${format} download: ${response.status}, ${bytes.length} of ${done.file!.sizeBytes} bytes`,
    );
  let length = '';
  if (format === 'mp4') {
    const file = path.join(workspace.work, 'bench.mp4');
    writeFileSync(file, bytes);
    try {
      length = `, ${videoSeconds(file).toFixed(1)} s of video`;
    } catch {
      length = ' (no ffprobe here to read its length)';
    }
  }
  console.log(`${format}: ${(bytes.length / 1024).toFixed(0)} KiB${length}`);
}

/** Times `/healthz`, one request after another, until `until` settles. */
async function healthzUntil(url: string, until: Promise<unknown>): Promise<number[]> {
  let settled = false;
  until.then(
    () => (settled = true),
    () => (settled = true),
  );
  const timings: number[] = [];
  while (!settled) {
    const started = performance.now();
    const response = await fetch(`${url}/healthz`);
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`/healthz answered ${response.status}`);
    timings.push(performance.now() - started);
  }
  return timings;
}

/** Asks `condition` every POLL_MS until it answers something (not false or undefined). */
async function waitFor<T>(
  condition: () => Promise<T | false | undefined>,
  timeoutMs = 30 * 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const answer = await condition();
    if (answer !== false && answer !== undefined) return answer;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`not done within ${timeoutMs} ms`);
}

/**
 * The peak RSS of a process with every process under it (its render processes, their ffmpeg)
 * summed at each sample, and of the process alone, every 50 ms until `stop`.
 */
function sampleMemory(pid: number) {
  let tree = 0;
  let alone = 0;
  let sampling: Promise<void> = Promise.resolve();
  const sample = async () => {
    tree = Math.max(tree, await treeResidentBytes(pid));
    alone = Math.max(alone, await residentBytes(pid));
  };
  const timer = setInterval(() => {
    sampling = sampling.then(sample);
  }, 50);
  return {
    async stop() {
      clearInterval(timer);
      await sampling;
      await sample();
      return { tree, alone };
    },
  };
}

/** The value at quantile `q` of a list (as bench-setup's `summarise` takes it). */
function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

function goal(value: number, limit: number, unit: string): string {
  return `(goal < ${limit} ${unit}: ${value < limit ? 'met' : 'missed'})`;
}

function mb(bytes: number): string {
  return (bytes / 1_048_576).toFixed(0);
}
