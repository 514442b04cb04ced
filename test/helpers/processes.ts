import { type ChildProcess, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

export const projectRoot = path.resolve(import.meta.dirname, '../..');
const execFileAsync = promisify(execFile);

/** Env for child processes: this Node (24) first on PATH, no inherited service settings. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, DATA_DIR: _a, PORT: _p, LOG_FORMAT: _f, ...rest } = process.env;
  return { ...rest, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`, ...extra };
}

/**
 * Runs a script to completion; resolves with its exit code and output (never rejects on a
 * non-zero exit). `input`, when given, is written to its standard input, which then closes.
 */
export async function runScript(script: string, args: string[], env: Record<string, string>, input?: string) {
  try {
    const running = execFileAsync(process.execPath, [script, ...args], {
      cwd: projectRoot,
      env: childEnv(env),
      timeout: 60_000,
    });
    if (input !== undefined) running.child.stdin?.end(input);
    const { stdout, stderr } = await running;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/**
 * Starts the service from its sources (`app/main.ts`; `entry` names another, e.g. the compiled
 * one `npm start` runs) and resolves once it logs that it listens. `nodeArgs` go before the
 * entry point (e.g. `--import` a probe); with `ipc` the child has an IPC channel.
 */
export async function startServerProcess(
  env: Record<string, string>,
  options: { nodeArgs?: string[]; ipc?: boolean; entry?: string[] } = {},
): Promise<{
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}> {
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), ...(options.entry ?? ['app/main.ts'])],
    {
      cwd: projectRoot,
      env: childEnv(env),
      stdio: options.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = listeningUrl(output);
      if (url) resolve(url);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    exited.then((code) => reject(new Error(`server exited with ${code} before listening:\n${output}`)));
  });
  return { child, url, output: () => output, exited };
}

/** The address of a "deck service listening" log line in the output, once it is complete. */
function listeningUrl(output: string): string | undefined {
  for (const line of output.split('\n')) {
    if (!line.includes('deck service listening')) continue;
    try {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === 'deck service listening' && entry.url?.startsWith('http:')) return entry.url;
    } catch {
      // A line still being written, or not JSON.
    }
  }
  return undefined;
}
