import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { createRequire } from 'node:module';
import { ExportFailed } from '../../domain/ports/deck-exporter.ts';

/** The end of ffmpeg's error output kept for a failure's message. */
const STDERR_KEPT = 2000;

let binary: string | undefined;
/**
 * The ffmpeg binary `@ffmpeg-installer/<platform>` ships (an npm package: nothing downloads;
 * decision 076). Looked up at the first video, not at start: on a platform it has no binary for,
 * its package throws, and only MP4 exports fail (with that reason).
 */
export function ffmpegPath(): string {
  if (binary) return binary;
  try {
    const installer = createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string };
    binary = installer.path;
    return binary;
  } catch (error) {
    throw new ExportFailed(`no video encoder for this platform: ${String(error)}`);
  }
}

/** ffmpeg stopped with an error: its exit and the end of what it said. */
export class FfmpegFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FfmpegFailed';
  }
}

/** Its output grew past `maxBytes`: ffmpeg was stopped. */
export class FfmpegOutputTooLarge extends Error {
  constructor(maxBytes: number) {
    super(`output larger than ${maxBytes} bytes`);
    this.name = 'FfmpegOutputTooLarge';
  }
}

/**
 * Runs ffmpeg once, as a child process: no shell, no input (`-nostdin`, stdin closed), its error
 * output kept to its last STDERR_KEPT characters, killed (SIGKILL: at once, nothing more written)
 * when `signal` aborts. With `output`, what ffmpeg writes to its standard output goes to that file,
 * at most `maxBytes` of it (ffmpeg is killed past that). Resolves with the bytes written.
 */
export async function runFfmpeg(
  args: string[],
  options: { cwd: string; signal: AbortSignal; output?: { path: string; maxBytes: number } },
): Promise<number> {
  options.signal.throwIfAborted();
  const child = spawn(ffmpegPath(), ['-hide_banner', '-nostdin', '-loglevel', 'error', ...args], {
    cwd: options.cwd,
    stdio: ['ignore', options.output ? 'pipe' : 'ignore', 'pipe'],
    signal: options.signal,
    killSignal: 'SIGKILL',
    windowsHide: true,
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT);
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
  let written = 0;
  let tooLarge = false;
  const copied = (async () => {
    const { output } = options;
    if (!output || !child.stdout) return;
    // Written up to the bound exactly, then the file ended cleanly (an error in a pipeline would
    // destroy the file stream and drop what it still buffered: a cut of a random length).
    const file = createWriteStream(output.path);
    try {
      for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
        const room = output.maxBytes - written;
        if (chunk.length > room) {
          if (room > 0) file.write(chunk.subarray(0, room));
          written += room;
          tooLarge = true;
          child.kill('SIGKILL');
          break;
        }
        written += chunk.length;
        if (!file.write(chunk)) await once(file, 'drain');
      }
    } finally {
      await new Promise<void>((resolve, reject) =>
        file.end((error?: Error | null) => (error ? reject(error) : resolve())),
      );
    }
  })();
  // Both settle (the copy ends when ffmpeg's output closes), whichever fails first.
  const [exit, copy] = await Promise.allSettled([exited, copied]);
  if (options.signal.aborted) throw options.signal.reason;
  if (tooLarge && options.output) throw new FfmpegOutputTooLarge(options.output.maxBytes);
  if (exit.status === 'rejected') throw new FfmpegFailed(`ffmpeg did not run: ${String(exit.reason)}`);
  if (exit.value !== 0) {
    const said = stderr.trim().split('\n').slice(-3).join(' | ');
    throw new FfmpegFailed(`ffmpeg exited with ${exit.value ?? 'a signal'}${said ? `: ${said}` : ''}`);
  }
  if (copy.status === 'rejected')
    throw new FfmpegFailed(`ffmpeg's output could not be written: ${String(copy.reason)}`);
  return written;
}
