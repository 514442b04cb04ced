/**
 * What the benchmarks that run the service as a child process share: a free port, waiting for
 * an address to answer, running a command to completion, and signing in.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function waitForHttp(url: string, child: ChildProcess, headers: Record<string, string> = {}) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with ${child.exitCode}`);
    try {
      const response = await fetch(url, { headers });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer within 2 minutes`);
}

export function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`)),
    );
  });
}

/** Signs in over HTTP; returns the `session=…` cookie pair. */
export async function login(url: string, email: string, password: string): Promise<string> {
  const response = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (response.status !== 200) throw new Error(`login answered ${response.status}: ${await response.text()}`);
  const session = response.headers.getSetCookie().find((c) => c.startsWith('session='));
  return session!.split(';')[0]!;
}

/** CPU time (ms) of every process, by pid and command name, from /proc (Linux); undefined elsewhere. */
export function cpuTimes(): Map<number, { name: string; ms: number; parent: number }> | undefined {
  if (!existsSync('/proc/self/stat')) return undefined;
  const ticksPerMs = 100 / 1000; // USER_HZ is 100 on Linux
  const times = new Map<number, { name: string; ms: number; parent: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      times.set(Number(entry), {
        name,
        ms: (Number(fields[11]) + Number(fields[12])) / ticksPerMs,
        parent: Number(fields[1]),
      });
    } catch {
      // gone meanwhile
    }
  }
  return times;
}
