import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './helpers/free-port.ts';
import { HttpClient } from './helpers/http-client.ts';
import { runScript, startServerProcess } from './helpers/processes.ts';
import { createTestDatabase, startTestApp } from './helpers/test-app.ts';

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

function createUser(env: Record<string, string>, ...args: string[]) {
  return runScript('scripts/admin.ts', ['create-user', ...args], env);
}

function createApiKey(env: Record<string, string>, ...args: string[]) {
  return runScript('scripts/admin.ts', ['create-api-key', ...args], env);
}

describe('npm run admin -- create-user', () => {
  it('creates the organization and the user against DATABASE_URL, prints one JSON line, and the user can sign in', async () => {
    const databaseUrl = await createTestDatabase();
    const env = { DATABASE_URL: databaseUrl };
    const first = await createUser(
      env,
      '--organization',
      'Acme',
      '--email',
      'a@acme.test',
      '--password',
      'p4ssw0rd!',
      '--name',
      'Ada',
    );
    expect(first.code).toBe(0);
    const lines = first.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0]!);
    expect(created).toEqual({ organizationId: expect.any(String), userId: expect.any(String) });

    // A second user of the same organization joins it instead of creating another.
    const second = await createUser(
      env,
      '--organization',
      'Acme',
      '--email',
      'b@acme.test',
      '--password',
      'p4ssw0rd!',
    );
    expect(JSON.parse(second.stdout).organizationId).toBe(created.organizationId);

    const duplicate = await createUser(
      env,
      '--organization',
      'Acme',
      '--email',
      'A@acme.test',
      '--password',
      'p4ssw0rd!',
    );
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/already exists/);
    expect(duplicate.stdout).toBe('');

    const invalid = await createUser(env, '--organization', 'Acme', '--email', 'nope', '--password', 'short');
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/--email/);
    expect(invalid.stderr).toMatch(/--password/);
    expect(invalid.stderr).not.toContain('short');

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
      '--organization',
      'Live',
      '--email',
      'live@x.test',
      '--password',
      'p4ssw0rd!',
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
      '--organization',
      'Offline',
      '--email',
      'off@x.test',
      '--password',
      'p4ssw0rd!',
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
  });
});

describe('npm run admin -- create-api-key', () => {
  it('creates a key for an existing organization and prints its secret once; the key works', async () => {
    const databaseUrl = await createTestDatabase();
    const env = { DATABASE_URL: databaseUrl };
    const user = await createUser(
      env,
      '--organization',
      'Keyed',
      '--email',
      'k@keyed.test',
      '--password',
      'p4ssw0rd!',
    );
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
