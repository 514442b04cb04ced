import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HttpClient } from './helpers/http-client.ts';
import { runScript, startServerProcess } from './helpers/processes.ts';

/**
 * `npm start` with no database setting: each DATA_DIR gets its own embedded PostgreSQL on a
 * port of its own, recorded beside the cluster, and the admin CLI finds it there.
 */
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

async function start(dataDir: string) {
  // EMBEDDED_POSTGRES_PORT empty: unset, whatever the shell running the tests has.
  const server = await startServerProcess({
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    EMBEDDED_POSTGRES_PORT: '',
  });
  const stop = async () => {
    if (server.child.exitCode === null) server.child.kill('SIGTERM');
    return server.exited;
  };
  cleanup.push(stop);
  // The demo login, printed at the first start on an empty database.
  const login = server.output().match(/-d '(\{"email":"[^']+\})'/);
  return { ...server, stop, demo: JSON.parse(login?.[1] ?? 'null') as { email: string; password: string } };
}

async function recordedPort(dataDir: string): Promise<number> {
  return JSON.parse(await readFile(path.join(dataDir, 'postgres-credentials.json'), 'utf8')).port;
}

function createUser(dataDir: string, password: string) {
  return runScript(
    'scripts/admin.ts',
    ['create-user', '--organization', 'Side', '--email', 'same@x.test'],
    { DATA_DIR: dataDir, EMBEDDED_POSTGRES_PORT: '' },
    `${password}\n`,
  );
}

async function signIn(url: string, credentials: { email: string; password: string }) {
  const client = new HttpClient(url);
  return (await client.post('/api/auth/login', credentials)).status;
}

describe('embedded PostgreSQL per DATA_DIR', () => {
  it('runs two services side by side with no setting; the admin CLI reaches each one’s own cluster', async () => {
    const a = await mkdtemp(path.join(os.tmpdir(), 'deck-side-a-'));
    const b = await mkdtemp(path.join(os.tmpdir(), 'deck-side-b-'));
    cleanup.push(() => rm(a, { recursive: true, force: true }));
    cleanup.push(() => rm(b, { recursive: true, force: true }));

    const first = await start(a);
    const second = await start(b);
    expect(await signIn(first.url, first.demo)).toBe(200);
    expect(await signIn(second.url, second.demo)).toBe(200);
    expect(await signIn(first.url, second.demo)).toBe(401);

    const portA = await recordedPort(a);
    const portB = await recordedPort(b);
    expect(portA).not.toBe(portB);
    expect((await stat(path.join(a, 'postgres-credentials.json'))).mode & 0o777).toBe(0o600);

    // The same e-mail on both: e-mails are unique per database, so had both commands reached
    // one cluster, the second would fail; each password signs in only where it was created.
    expect((await createUser(a, 'password-of-a')).code).toBe(0);
    expect((await createUser(b, 'password-of-b')).code).toBe(0);
    const user = (password: string) => ({ email: 'same@x.test', password });
    expect(await signIn(first.url, user('password-of-a'))).toBe(200);
    expect(await signIn(second.url, user('password-of-b'))).toBe(200);
    expect(await signIn(first.url, user('password-of-b'))).toBe(401);

    // Stopped, the CLI starts the cluster itself on its recorded port, and stops it again.
    expect(await first.stop()).toBe(0);
    const offline = await runScript(
      'scripts/admin.ts',
      ['create-user', '--organization', 'Side', '--email', 'offline@x.test'],
      { DATA_DIR: a, EMBEDDED_POSTGRES_PORT: '' },
      'p4ssw0rd!\n',
    );
    expect(offline.code).toBe(0);
    expect(await recordedPort(a)).toBe(portA);

    // The recorded port taken by another program meanwhile: the next start takes a new one.
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(portA, '127.0.0.1', resolve));
    cleanup.push(() => new Promise((resolve) => squatter.close(resolve)));
    const again = await start(a);
    expect(await recordedPort(a)).not.toBe(portA);
    expect(await signIn(again.url, user('password-of-a'))).toBe(200);
    expect(await signIn(again.url, { email: 'offline@x.test', password: 'p4ssw0rd!' })).toBe(200);
    // Two services, each starting its own PostgreSQL cluster (initdb), and the CLI against each.
  }, 120_000);
});
