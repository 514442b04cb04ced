import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './helpers/free-port.ts';
import { expectProblem, HttpClient } from './helpers/http-client.ts';
import { childEnv, projectRoot, runScript, startServerProcess } from './helpers/processes.ts';
import { createTestDatabase, startTestApp, type TestApp } from './helpers/test-app.ts';

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

/** create-user with its password on standard input (never on the command line). */
function createUser(env: Record<string, string>, password: string, ...args: string[]) {
  return runScript('scripts/admin.ts', ['create-user', ...args], env, `${password}\n`);
}

function createApiKey(env: Record<string, string>, ...args: string[]) {
  return runScript('scripts/admin.ts', ['create-api-key', ...args], env);
}

describe('npm run admin -- create-user', { timeout: 90_000 }, () => {
  it('creates the organization and the user against DATABASE_URL, prints one JSON line, and the user can sign in', async () => {
    const databaseUrl = await createTestDatabase();
    const env = { DATABASE_URL: databaseUrl };
    const first = await createUser(
      env,
      'p4ssw0rd!',
      '--organization',
      'Acme',
      '--email',
      'a@acme.test',
      '--name',
      'Ada',
    );
    expect(first.code).toBe(0);
    const lines = first.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0]!);
    expect(created).toEqual({ organizationId: expect.any(String), userId: expect.any(String) });

    // A second user of the same organization joins it instead of creating another.
    const second = await createUser(env, 'p4ssw0rd!', '--organization', 'Acme', '--email', 'b@acme.test');
    expect(JSON.parse(second.stdout).organizationId).toBe(created.organizationId);

    const duplicate = await createUser(env, 'p4ssw0rd!', '--organization', 'Acme', '--email', 'A@acme.test');
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/already exists/);
    expect(duplicate.stdout).toBe('');

    // A password piped in is named as such, never shown; the development secrets' notice is not printed.
    const invalid = await createUser(env, 'short', '--organization', 'Acme', '--email', 'nope');
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/--email/);
    expect(invalid.stderr).toMatch(/the password: [^\n]*at least 8/);
    expect(invalid.stderr).not.toContain('short');
    expect(first.stderr).toBe('');

    const server = await startServerProcess({
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      SEED_DEMO: 'false',
    });
    cleanup.push(async () => {
      server.child.kill('SIGTERM');
      await server.exited;
    });
    const login = await new HttpClient(server.url).post('/api/auth/login', {
      email: 'a@acme.test',
      password: 'p4ssw0rd!',
    });
    expect(login.status).toBe(200);
    expect(login.body.user).toMatchObject({ id: created.userId, name: 'Ada', role: 'owner' });
  });

  it('takes no password on the command line, and names a short one by the flag that gave it', async () => {
    const env = { DATABASE_URL: await createTestDatabase() };
    // On the command line (which ps shows and npm prints) a password is refused before anything is written.
    const onCommandLine = await runScript(
      'scripts/admin.ts',
      ['create-user', '--organization', 'Acme', '--email', 'c@acme.test', '--password', 'visible-in-ps'],
      env,
    );
    expect(onCommandLine.code).toBe(1);
    expect(onCommandLine.stderr).toContain('--password is not taken');
    expect(onCommandLine.stderr).toContain('--password-file <path>');
    expect(onCommandLine.stderr).not.toContain('visible-in-ps');

    // A short password read from a file is reported as --password-file, the flag that gave it.
    const dir = await mkdtemp(path.join(os.tmpdir(), 'deck-secret-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'password');
    await writeFile(file, 'tiny\n', { mode: 0o600 });
    const shortFile = await runScript(
      'scripts/admin.ts',
      ['create-user', '--organization', 'Acme', '--email', 'c@acme.test', '--password-file', file],
      env,
    );
    expect(shortFile.code).toBe(1);
    expect(shortFile.stderr).toMatch(/--password-file: [^\n]*at least 8/);
    expect(shortFile.stderr).not.toMatch(/ --password:/);
  });

  it('works on the embedded database both while the server runs and when it is stopped', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'deck-cli-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const env = {
      DATA_DIR: dataDir,
      EMBEDDED_POSTGRES_PORT: String(await freePort()),
      PORT: '0',
      HOST: '127.0.0.1',
    };

    const server = await startServerProcess(env);
    expect(server.output()).toMatch(/Demo data created/);
    const whileRunning = await createUser(
      env,
      'p4ssw0rd!',
      '--organization',
      'Live',
      '--email',
      'live@x.test',
    );
    expect(whileRunning.code).toBe(0);
    const login = await new HttpClient(server.url).post('/api/auth/login', {
      email: 'live@x.test',
      password: 'p4ssw0rd!',
    });
    expect(login.status).toBe(200);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);

    const whileStopped = await createUser(
      env,
      'p4ssw0rd!',
      '--organization',
      'Offline',
      '--email',
      'off@x.test',
    );
    expect(whileStopped.code).toBe(0);

    // Started again on the same data: both users are there, and the demo is not seeded twice.
    const again = await startServerProcess(env);
    cleanup.push(async () => {
      again.child.kill('SIGTERM');
      await again.exited;
    });
    expect(again.output()).not.toMatch(/Demo data created/);
    const offline = await new HttpClient(again.url).post('/api/auth/login', {
      email: 'off@x.test',
      password: 'p4ssw0rd!',
    });
    expect(offline.status).toBe(200);
    // Four starts of a whole PostgreSQL cluster (one of them initdb) and two of the service.
  }, 120_000);
});

describe('npm run admin -- list-users and set-password', { timeout: 90_000 }, () => {
  let t: TestApp;
  let env: Record<string, string>;
  beforeAll(async () => {
    t = await startTestApp();
    env = { DATABASE_URL: t.databaseUrl };
  });
  afterAll(() => t.close());

  it('list-users prints the organization’s users as one JSON line, with no password or hash', async () => {
    const owner = await t.signedInClient('Listed');
    const member = await t.signedInClient('Listed', 'member');
    const listed = await runScript('scripts/admin.ts', ['list-users', '--organization', 'Listed'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual({
      organizationId: owner.organizationId,
      users: [
        expect.objectContaining({ id: owner.userId, email: owner.email, role: 'owner' }),
        expect.objectContaining({ id: member.userId, email: member.email, role: 'member' }),
      ],
    });
    expect(listed.stdout).not.toMatch(/scrypt|argon2|password/i);
    const unknown = await runScript('scripts/admin.ts', ['list-users', '--organization', 'Nobody Inc'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no organization named Nobody Inc/);
  });

  it('set-password reads the password from standard input and ends every session of the user', async () => {
    const user = await t.signedInClient();
    const newPassword = 'piped-in-password';
    const result = await runScript(
      'scripts/admin.ts',
      ['set-password', '--email', user.email],
      env,
      `${newPassword}\n`,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ userId: user.userId });
    expect(`${result.stdout}${result.stderr}`).not.toContain(newPassword);
    expectProblem(await user.get('/api/auth/me'), 401, 'UNAUTHORIZED');
    expect(
      (await t.client().post('/api/auth/login', { email: user.email, password: user.password })).status,
    ).toBe(401);
    expect(
      (await t.client().post('/api/auth/login', { email: user.email, password: newPassword })).status,
    ).toBe(200);
    expect(await t.eventTypes(user.userId)).toContain('user.password_changed');
  });

  it('set-password reads --password-file, and refuses --password (ps would show it), a short password or an unknown user', async () => {
    const user = await t.signedInClient();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'deck-secret-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'password');
    await writeFile(file, 'from-a-file-password\n', { mode: 0o600 });
    const fromFile = await runScript(
      'scripts/admin.ts',
      ['set-password', '--email', user.email, '--password-file', file],
      env,
    );
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(
      (await t.client().post('/api/auth/login', { email: user.email, password: 'from-a-file-password' }))
        .status,
    ).toBe(200);

    const onCommandLine = await runScript(
      'scripts/admin.ts',
      ['set-password', '--email', user.email, '--password', 'visible-in-ps'],
      env,
    );
    expect(onCommandLine.code).toBe(1);
    expect(onCommandLine.stderr).toMatch(/--password/);
    const short = await runScript(
      'scripts/admin.ts',
      ['set-password', '--email', user.email],
      env,
      'short\n',
    );
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/at least 8/);
    expect(short.stderr).not.toContain('short\n');
    const unknown = await runScript(
      'scripts/admin.ts',
      ['set-password', '--email', 'nobody@x.test'],
      env,
      'long-enough-1\n',
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no user with e-mail nobody@x.test/);
    expect(unknown.stderr).not.toContain('long-enough-1');
    // None of the refused attempts changed the password.
    expect(
      (await t.client().post('/api/auth/login', { email: user.email, password: 'from-a-file-password' }))
        .status,
    ).toBe(200);
  });

  it('set-password at a terminal asks twice and echoes nothing typed', async () => {
    const user = await t.signedInClient();
    const typed = 'typed-at-a-terminal';
    // `script` gives the command a real pseudo-terminal; we type only once each prompt is shown
    // (before raw mode the terminal itself would echo).
    const child = spawn(
      'script',
      ['-qec', `${process.execPath} scripts/admin.ts set-password --email ${user.email}`, '/dev/null'],
      { cwd: projectRoot, env: childEnv(env) },
    );
    let output = '';
    const prompted = (count: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if ((output.match(/password: |Again: /g) ?? []).length >= count) {
            child.stdout.off('data', check);
            resolve();
          }
        };
        child.stdout.on('data', check);
        check();
      });
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await prompted(1);
    child.stdin.write(`${typed}\r`);
    await prompted(2);
    child.stdin.write(`${typed}\r`);
    expect(await exited, output).toBe(0);
    expect(output).toMatch(/New password: /);
    expect(output).not.toContain(typed);
    expect(output).toContain(user.userId);
    expect((await t.client().post('/api/auth/login', { email: user.email, password: typed })).status).toBe(
      200,
    );
  });
});

describe('npm run admin -- create-api-key', { timeout: 90_000 }, () => {
  it('creates a key for an existing organization and prints its secret once; the key works', async () => {
    const databaseUrl = await createTestDatabase();
    const env = { DATABASE_URL: databaseUrl };
    const user = await createUser(env, 'p4ssw0rd!', '--organization', 'Keyed', '--email', 'k@keyed.test');
    const { organizationId } = JSON.parse(user.stdout);
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const created = await createApiKey(
      env,
      '--organization',
      'Keyed',
      '--name',
      'Importer',
      '--access',
      'write',
      '--expires-at',
      expiresAt,
    );
    expect(created.code, created.stderr).toBe(0);
    const lines = created.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const output = JSON.parse(lines[0]!);
    expect(output).toEqual({
      organizationId,
      secret: expect.stringMatching(/^dk_[A-Za-z0-9_-]{43}$/),
      apiKey: expect.objectContaining({ name: 'Importer', access: 'write', createdBy: null, expiresAt }),
    });
    expect(created.stderr).not.toContain(output.secret);

    const refused = await createApiKey(
      env,
      '--organization',
      'Nobody',
      '--name',
      'x',
      '--access',
      'owner',
      '--expires-at',
      'soon',
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--access/);
    expect(refused.stderr).toMatch(/--expires-at/);
    const unknown = await createApiKey(env, '--organization', 'Nobody', '--name', 'x', '--access', 'read');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/Organization Nobody was not found/);
    expect(unknown.stdout).toBe('');

    // The service on that database answers the key as its organization; the event names no user.
    const app = await startTestApp({}, { databaseUrl });
    try {
      const me = await app.client().request('GET', '/api/auth/me', {
        headers: { authorization: `Bearer ${output.secret}` },
      });
      expect(me.body).toEqual({
        user: null,
        apiKey: { id: output.apiKey.id, name: 'Importer', access: 'write' },
        organization: { id: organizationId, name: 'Keyed' },
      });
      const [event] = await app.app.database.orm.em
        .getConnection()
        .execute("select payload->'actor' as actor from event where event_type = 'api_key.created'");
      expect(event!.actor).toEqual({ type: 'system' });
    } finally {
      await app.close();
    }
  });
});
