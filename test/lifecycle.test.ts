import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HttpClient } from './helpers/http-client.ts';
import { runScript, startServerProcess } from './helpers/processes.ts';
import { createTestDatabase } from './helpers/test-app.ts';

describe('configuration', () => {
  it('refuses to start with a clear message per bad value, without echoing values', async () => {
    const result = await runScript('app/main.ts', [], {
      PORT: 'eighty',
      DATABASE_URL: 'mysql://user:hunter2@db/x',
      LOG_LEVEL: 'loud',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/PORT: /);
    expect(result.stderr).toMatch(/DATABASE_URL: must be a postgres/);
    expect(result.stderr).toMatch(/LOG_LEVEL: /);
    expect(result.stderr).not.toContain('hunter2');
  });

  it('refuses to start in production without STORAGE_SIGNING_SECRET', async () => {
    const result = await runScript('app/main.ts', [], {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://x/y',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/STORAGE_SIGNING_SECRET: is required in production/);
  });
});

// Issue 29, finding 11: a production service created the demo organization (and printed its
// password) on an empty database unless SEED_DEMO=false was remembered.
describe('demo data on an empty database', () => {
  const DEMO_PASSWORD = 'the-demo-password-1';
  /** `npm start` on a fresh database; answers whether the demo user can sign in. */
  async function demoSignsIn(env: Record<string, string>): Promise<{ signsIn: boolean; output: string }> {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'deck-seed-'));
    const server = await startServerProcess({
      DATABASE_URL: await createTestDatabase(),
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      DEMO_PASSWORD,
      ...env,
    });
    try {
      // Seeding finishes before the "listening" line that startServerProcess waits for.
      const login = await new HttpClient(server.url).post('/api/auth/login', {
        email: 'demo@example.com',
        password: DEMO_PASSWORD,
      });
      expect([200, 401]).toContain(login.status);
      return { signsIn: login.status === 200, output: server.output() };
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      await rm(dataDir, { recursive: true, force: true });
    }
  }
  const productionSecrets = {
    NODE_ENV: 'production',
    STORAGE_SIGNING_SECRET: 's'.repeat(40),
    ENCRYPTION_KEY: 'e'.repeat(40),
  };

  // Each test starts a service process: seconds each on a busy machine.
  it('in production nothing is seeded, nor a password printed', async () => {
    const production = await demoSignsIn(productionSecrets);
    expect(production.signsIn).toBe(false);
    expect(production.output).not.toContain('Demo data created');
    expect(production.output).not.toContain(DEMO_PASSWORD);
  }, 60_000);

  it('in production SEED_DEMO=true still seeds', async () => {
    expect((await demoSignsIn({ ...productionSecrets, SEED_DEMO: 'true' })).signsIn).toBe(true);
  }, 60_000);

  it('outside production the demo is seeded by default (the first five minutes of the README)', async () => {
    const development = await demoSignsIn({ NODE_ENV: 'development' });
    expect(development.signsIn).toBe(true);
    expect(development.output).toContain('Demo data created');
  }, 60_000);
});

describe('SIGTERM', () => {
  it('stops accepting, finishes the request in flight, then exits 0', async () => {
    const databaseUrl = await createTestDatabase();
    const server = await startServerProcess({
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'debug',
    });
    const { port } = new URL(server.url);

    // A login whose body is still arriving when the signal comes.
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const body = JSON.stringify({ email: 'demo@example.com', password: 'not-the-password' });
    socket.write(
      `POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
    );
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    const closed = new Promise((resolve) => socket.once('close', resolve));
    await waitFor(() => /"path":"\/api\/auth\/login","msg":"request started"/.test(server.output()));

    server.child.kill('SIGTERM');
    await waitFor(() => server.output().includes('shutting down'));
    // New connections are refused once the listener is closed.
    await waitFor(async () => (await new HttpClient(server.url).get('/healthz').catch(() => null)) === null);

    socket.write(body.slice(10));
    await closed;
    const code = await server.exited;
    expect(answer, `exit ${code}\n${server.output()}`).toMatch(/^HTTP\/1\.1 401/);
    expect(await server.exited).toBe(0);
  });
});

describe('SIGTERM behind a load balancer (SHUTDOWN_DRAIN_MS)', () => {
  it('answers /readyz 503 at once but keeps serving for the drain, then stops accepting and exits 0', async () => {
    const server = await startServerProcess({
      DATABASE_URL: await createTestDatabase(),
      PORT: '0',
      HOST: '127.0.0.1',
      SHUTDOWN_DRAIN_MS: '1500',
    });
    const client = new HttpClient(server.url);
    expect((await client.get('/readyz')).status).toBe(200);
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    await waitFor(() => server.output().includes('shutting down'));
    const notReady = await client.get('/readyz');
    expect(notReady.status).toBe(503);
    expect(notReady.headers.get('connection')).toBe('close');
    // Still serving (a balancer that has not yet seen the 503 loses nothing) …
    expect((await client.get('/healthz')).status).toBe(200);
    expect((await client.get('/api/auth/me')).status).toBe(401);
    // … until the drain is over: then new connections are refused, and the process exits 0.
    await waitFor(async () => (await client.get('/healthz').catch(() => null)) === null);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(1500);
    expect(await server.exited).toBe(0);
  });
});

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
