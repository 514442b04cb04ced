/**
 * What a sign-in costs end to end: POST /api/auth/login over HTTP against the service as a child
 * process (`app/main.ts`), one request at a time, for the right password, a wrong one and an
 * unknown e-mail (the decoy check). Prints median and p95 of each, in milliseconds, and the
 * service's CPU time per sign-in (from /proc: less at the mercy of other work on the machine).
 * Usage: npm run bench:login   (BENCH_LOGINS: sign-ins of each kind, default 40)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { cpuTimes, createUser, freePort, openBenchWorkspace, ROOT, waitForHttp } from './bench-service.ts';

const LOGINS = Number(process.env.BENCH_LOGINS ?? 40);
const email = 'bench-login@bench.test';
const password = 'bench-login-password';

const workspace = await openBenchWorkspace('login');
let service: ChildProcess | undefined;
try {
  // No throttle in the way: every attempt here is one password check.
  const childEnv = {
    ...workspace.serviceEnv,
    LOG_LEVEL: 'warn',
    LOGIN_MAX_FAILURES_PER_ADDRESS: '1000000',
    LOGIN_MAX_FAILURES_PER_EMAIL_AND_ADDRESS: '1000000',
    LOGIN_BACKOFF_AFTER_FAILURES_PER_EMAIL: '1000000',
  };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  service = spawn(process.execPath, ['app/main.ts'], {
    cwd: ROOT,
    env: { ...childEnv, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitForHttp(`${url}/healthz`, service);
  const pid = service.pid!;
  const serviceCpuMs = () => cpuTimes()?.get(pid)?.ms ?? Number.NaN;
  await createUser(childEnv, { organization: 'Bench login', email: email, password: password });

  const signIn = async (body: { email: string; password: string }, expected: number) => {
    const started = performance.now();
    const response = await fetch(`${url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await response.arrayBuffer();
    const ms = performance.now() - started;
    if (response.status !== expected) throw new Error(`login answered ${response.status}, not ${expected}`);
    return ms;
  };
  const measure = async (label: string, body: { email: string; password: string }, expected: number) => {
    await signIn(body, expected); // warm-up
    const times: number[] = [];
    const cpuBefore = serviceCpuMs();
    for (let i = 0; i < LOGINS; i++) times.push(await signIn(body, expected));
    const cpuPerSignIn = ((serviceCpuMs() - cpuBefore) / LOGINS).toFixed(1);
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]!.toFixed(1);
    console.log(
      `${label}: median ${at(0.5)} ms, p95 ${at(0.95)} ms, service CPU ${cpuPerSignIn} ms a sign-in (${LOGINS}, one at a time)`,
    );
  };

  const load = os.loadavg().map((l) => l.toFixed(2));
  console.log(`bench:login — load average ${load.join(' ')}`);
  await measure('right password ', { email, password }, 200);
  await measure('wrong password ', { email, password: 'not the password' }, 401);
  await measure('unknown e-mail ', { email: 'nobody@bench.test', password }, 401);
} finally {
  service?.kill('SIGTERM');
  await new Promise((resolve) => service?.once('exit', resolve));
  await workspace.close();
}
