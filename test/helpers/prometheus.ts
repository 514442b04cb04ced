import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.ts';

/** `promtool check metrics` on a scrape's text: its complaints (empty: none), and its exit code. */
export function promtoolCheck(text: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = execFile('promtool', ['check', 'metrics'], (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr });
    });
    child.stdin!.end(text);
  });
}

export interface RunningPrometheus {
  url: string;
  /** Prometheus' HTTP API: the `data` of a GET under /api/v1/. */
  api<T>(pathAndQuery: string): Promise<T>;
  close(): Promise<void>;
}

/** A real Prometheus (Debian's `prometheus`) scraping `targets` (host:port) every second. */
export async function startPrometheus(targets: string[]): Promise<RunningPrometheus> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'deck-prometheus-'));
  const config = path.join(dir, 'prometheus.yml');
  await writeFile(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 900ms',
      'scrape_configs:',
      '  - job_name: deck-service',
      '    static_configs:',
      `      - targets: [${targets.map((target) => `'${target}'`).join(', ')}]`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const child: ChildProcess = spawn(
    'prometheus',
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const api = async <T>(pathAndQuery: string): Promise<T> => {
    const response = await fetch(`${url}/api/v1/${pathAndQuery}`);
    const body = (await response.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`prometheus: ${body.error}`);
    return body.data;
  };
  const close = async () => {
    child.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  // Ready when its API answers (it starts in about a second).
  for (;;) {
    if (child.exitCode !== null) {
      await close();
      throw new Error('prometheus exited at start');
    }
    try {
      if ((await fetch(`${url}/-/ready`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, api, close };
}

interface Target {
  scrapeUrl: string;
  health: 'up' | 'down' | 'unknown';
  lastError: string;
}

/** Waits until Prometheus has scraped every target successfully at least once. */
export async function everyTargetUp(prometheus: RunningPrometheus, count: number): Promise<Target[]> {
  for (;;) {
    const { activeTargets } = await prometheus.api<{ activeTargets: Target[] }>('targets');
    if (activeTargets.length === count && activeTargets.every((target) => target.health === 'up')) {
      return activeTargets;
    }
    if (activeTargets.some((target) => target.health === 'down')) {
      throw new Error(`a target is down: ${JSON.stringify(activeTargets)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
