/**
 * `npm run bench:memory`: the service's memory, started as `npm start` starts it (the command of
 * package.json's `start` script, with a probe: bench/bench-memory-probe.mjs), on a database of
 * the script's own. Prints the resident set size (RSS, as the operating system counts it) and
 * the heap after a forced full collection at each step: right after start, after each of two
 * identical rounds of BENCH_REQUESTS (1,000) mixed requests (me, a 20-slide list, the event
 * page, a slide created and deleted), after BENCH_SPOKEN (50) FAQ answers spoken by the built-in
 * voice, and after a contract import. Growth is the difference of the heaps after the two rounds.
 * Last line, for scripts: `memory: idle <n> MB, after speech <n> MB, growth <n> MB`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, openBenchWorkspace, ROOT, signUp, startCommand, waitForHttp } from './bench-service.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1000);
const SPOKEN = Number(process.env.BENCH_SPOKEN ?? 50);
/** Requests in flight at once, as a few busy clients would keep. */
const CONCURRENCY = 8;

interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  youngGeneration: number;
}

function measure(service: ChildProcess): Promise<Memory> {
  return new Promise((resolve) => {
    service.once('message', (answer) => resolve(answer as Memory));
    service.send('memory');
  });
}

const mb = (bytes: number) => (bytes / 1_048_576).toFixed(1);
const report = (step: string, memory: Memory) =>
  console.log(
    `${step.padEnd(34)} RSS ${mb(memory.rss).padStart(6)} MB | after a full collection: heap ${mb(memory.heapUsed).padStart(5)} MB used of ${mb(memory.heapTotal).padStart(5)} MB (young generation ${mb(memory.youngGeneration)} MB), external ${mb(memory.external)} MB`,
  );

const workspace = await openBenchWorkspace('memory');
let service: ChildProcess | undefined;
try {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const command = await startCommand();
  service = spawn(
    process.execPath,
    ['--expose-gc', '--import', './bench/bench-memory-probe.mjs', ...command],
    {
      cwd: ROOT,
      env: { ...workspace.serviceEnv, PORT: String(port), LOG_LEVEL: 'error' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  );
  await waitForHttp(`${url}/readyz`, service);
  console.log(
    `bench:memory — \`node ${command.join(' ')}\` (npm start), ${REQUESTS} requests a round, ${SPOKEN} spoken answers`,
  );
  // What start-up left to collect is the collector's business: the RSS is read as it stands.
  const idle = await measure(service);
  report('after start', idle);

  const cookie = await signUp(workspace.serviceEnv, url, {
    organization: 'Memory',
    email: 'memory@bench.test',
    password: 'bench-password',
  });
  const call = async (method: string, route: string, body?: unknown, expected = [200, 201]) => {
    const response = await fetch(`${url}/api${route}`, {
      method,
      headers: { cookie, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    if (!expected.includes(response.status))
      throw new Error(`${method} ${route}: ${response.status} ${text}`);
    return text ? (JSON.parse(text) as { id: string }) : { id: '' };
  };
  const deck = await call('POST', '/decks', { name: 'Memory deck' });
  for (let n = 1; n <= 20; n++) {
    await call('POST', `/decks/${deck.id}/slides`, { title: `Slide ${n}`, bullets: ['One', 'Two', 'Three'] });
  }
  /** One of five kinds, in turn: what a busy client asks. */
  const request = async (n: number) => {
    switch (n % 4) {
      case 0:
        return call('GET', '/auth/me');
      case 1:
        return call('GET', `/decks/${deck.id}/slides`);
      case 2:
        return call('GET', '/notifications/events?limit=20');
      default: {
        const slide = await call('POST', `/decks/${deck.id}/slides`, { title: 'Passing' });
        return call('DELETE', `/slides/${slide.id}`);
      }
    }
  };
  const round = async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < REQUESTS) await request(next++);
      }),
    );
  };
  await round();
  const first = await measure(service);
  report(`after ${REQUESTS} requests`, first);
  await round();
  const second = await measure(service);
  report(`after ${REQUESTS} more requests`, second);

  const words = 'our platform lets every sales rep present a polished deck with answers spoken aloud'.split(
    ' ',
  );
  let spoken = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (spoken < SPOKEN) {
        const n = spoken++;
        const answer = words.map((_, i) => words[(i + n) % words.length]).join(' ');
        await call('POST', `/decks/${deck.id}/faqs`, {
          userQuestion: `Question ${n}?`,
          cannedAnswer: answer,
        });
      }
    }),
  );
  const afterSpeech = await measure(service);
  report(`after ${SPOKEN} spoken answers`, afterSpeech);

  const form = new FormData();
  const contract = readFileSync(
    path.join(ROOT, '..', 'shared', 'fixtures', 'contracts', 'common-paper-mutual-nda.docx'),
  );
  form.append('file', new Blob([new Uint8Array(contract)]), 'common-paper-mutual-nda.docx');
  const imported = await fetch(`${url}/api/contracts/import`, {
    method: 'POST',
    headers: { cookie },
    body: form,
  });
  if (imported.status !== 200)
    throw new Error(`contract import: ${imported.status} ${await imported.text()}`);
  report('after a contract import', await measure(service));

  const growth = (second.heapUsed - first.heapUsed) / 1_048_576;
  console.log(
    `growth between the two rounds: heap ${growth.toFixed(1)} MB, RSS ${mb(second.rss - first.rss)} MB (goals: idle < 120 MB, after speech < 200 MB, growth < 2 MB)`,
  );
  console.log(
    `memory: idle ${mb(idle.rss)} MB, after speech ${mb(afterSpeech.rss)} MB, growth ${growth.toFixed(1)} MB`,
  );
} finally {
  service?.kill('SIGTERM');
  if (service && service.exitCode === null) await new Promise((resolve) => service!.once('exit', resolve));
  await workspace.close();
}
