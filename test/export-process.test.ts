import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeckExporter } from '../adapters/export/deck-exporter.ts';
import { runFfmpeg } from '../adapters/export/ffmpeg-process.ts';
import type { DeckSnapshot, RenderRequest } from '../domain/ports/deck-exporter.ts';
import { childEnv, projectRoot } from './helpers/processes.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/**
 * Each export renders in a child process of its own (adapters/export/deck-exporter.ts, decision
 * 072): its memory goes back to the system when it ends, it is bounded (EXPORT_WORKER_MEMORY_MB,
 * read from /proc), and nothing of it outlives its export, whether the export is aborted or the
 * service itself is killed. The processes are looked for independently of the exporter: in /proc,
 * by their command line and their working directory.
 */
let dir: string;
let deck: DeckSnapshot;
const SLIDES = 6;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'export-process-'));
  // A minute of narration a slide: the video takes seconds to encode, time to stop it in.
  const mp3 = path.join(dir, 'narration.mp3');
  await runFfmpeg(
    ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=60', '-c:a', 'libmp3lame', '-b:a', '32k', '-y', mp3],
    { cwd: dir, signal: new AbortController().signal },
  );
  deck = {
    deckName: 'Processes',
    branding: null,
    logoPath: null,
    intro: null,
    slides: Array.from({ length: SLIDES }, (_, i) => ({
      id: String(i + 1),
      slideId: `slide-${i + 1}`,
      title: `Slide ${i + 1}`,
      bullets: ['One point', 'Another'],
      slideContext: null,
      narrationScript: 'A minute of tone.',
      slideType: 'standard' as const,
      productData: null,
      heroImagePath: null,
      audioPath: mp3,
    })),
    faqs: [],
  };
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The processes whose command line contains `text`, or (`cwd`) that work in a directory. */
async function processes(match: { cmdline?: string; cwd?: string }): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (match.cmdline && !(await readFile(`/proc/${entry}/cmdline`, 'utf8')).includes(match.cmdline))
        continue;
      if (match.cwd && (await readlink(`/proc/${entry}/cwd`)) !== match.cwd) continue;
      found.push(Number(entry));
    } catch {
      // It ended meanwhile.
    }
  }
  return found;
}
/**
 * The render process of the export in `workDir` (its command line names the directory), and the
 * ffmpeg working there.
 */
async function rendering(workDir: string) {
  const renders = await processes({ cmdline: 'export-process' });
  const named: number[] = [];
  for (const pid of renders) {
    if ((await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).includes(workDir)) named.push(pid);
  }
  return { renders: named, ffmpeg: await processes({ cmdline: 'ffmpeg', cwd: workDir }) };
}

/** Whether ffmpeg reads `file` as a whole video (a cut encode leaves no index: not playable). */
async function playable(file: string): Promise<boolean> {
  try {
    await runFfmpeg(['-v', 'error', '-i', file, '-f', 'null', '-'], {
      cwd: dir,
      signal: new AbortController().signal,
    });
    return true;
  } catch {
    return false;
  }
}

function request(format: RenderRequest['format'], workDir: string, signal: AbortSignal): RenderRequest {
  return { format, snapshot: deck, captions: true, workDir, signal, onProgress: () => {} };
}

describe('an export renders in a process of its own', () => {
  it('renders there, and leaves no process behind', async () => {
    const exporter = createDeckExporter({ workerMemoryMb: 512, timeoutMs: 120_000 });
    const workDir = await mkdtemp(path.join(dir, 'pdf-'));
    let during: Promise<{ renders: number[] }> | undefined;
    const rendered = await exporter.render({
      ...request('pdf', workDir, new AbortController().signal),
      onProgress: () => {
        during ??= rendering(workDir);
      },
    });
    expect(rendered.filePath).toBe(path.join(workDir, 'deck.pdf'));
    expect((await readFile(rendered.filePath)).subarray(0, 5).toString()).toBe('%PDF-');
    // While it rendered, one process named its directory; once it has answered, none does.
    expect((await during)?.renders).toHaveLength(1);
    await eventually(async () => (await rendering(workDir)).renders.length === 0);
    await exporter.close?.();
  });

  it('fails an export whose process holds more than EXPORT_WORKER_MEMORY_MB, naming it', async () => {
    // 64 MB: less than a Node process with a renderer loaded holds, so the first reading is past it.
    const exporter = createDeckExporter({ workerMemoryMb: 64, timeoutMs: 120_000 });
    const workDir = await mkdtemp(path.join(dir, 'memory-'));
    await expect(exporter.render(request('mp4', workDir, new AbortController().signal))).rejects.toThrow(
      'Rendering needed more than 64 MB of memory (EXPORT_WORKER_MEMORY_MB)',
    );
    expect(await rendering(workDir)).toEqual({ renders: [], ffmpeg: [] });
    await exporter.close?.();
  });

  it('aborted while ffmpeg works: the render process and its ffmpeg are gone when it rejects', async () => {
    const exporter = createDeckExporter({ workerMemoryMb: 512, timeoutMs: 120_000, abortGraceMs: 100 });
    const workDir = await mkdtemp(path.join(dir, 'abort-'));
    const abort = new AbortController();
    const rendering$ = exporter.render(request('mp4', workDir, abort.signal));
    rendering$.catch(() => {});
    await eventually(async () => (await rendering(workDir)).ffmpeg.length > 0, 60_000);
    abort.abort(new Error('canceled by the test'));
    await expect(rendering$).rejects.toThrow('canceled by the test');
    await eventually(async () => {
      const left = await rendering(workDir);
      return left.renders.length === 0 && left.ffmpeg.length === 0;
    }, 5000);
    await exporter.close?.();
  });

  it('the service killed by SIGKILL mid-render: its render process and ffmpeg end too', async () => {
    const workDir = await mkdtemp(path.join(dir, 'orphan-'));
    const orderFile = path.join(dir, 'order.json');
    await writeFile(orderFile, JSON.stringify({ format: 'mp4', snapshot: deck, captions: true, workDir }));
    const service = spawn(process.execPath, ['test/helpers/render-until-killed.ts', orderFile], {
      cwd: projectRoot,
      env: childEnv({}),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => service.once('exit', resolve));
    try {
      await eventually(async () => (await rendering(workDir)).ffmpeg.length > 0, 60_000);
      const before = await rendering(workDir);
      expect(before.renders.length).toBe(1);
      service.kill('SIGKILL');
      await exited;
      await eventually(async () => {
        const left = await rendering(workDir);
        return left.renders.length === 0 && left.ffmpeg.length === 0;
      }, 30_000);
      // They stopped, not finished: no whole video was written (an orphan left alone would end it).
      expect(await playable(path.join(workDir, 'deck.mp4'))).toBe(false);
    } finally {
      service.kill('SIGKILL');
    }
  });
});
