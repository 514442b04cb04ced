import { createHmac, hkdfSync } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../app/config.ts';
import { loadSecrets } from '../app/secrets.ts';
import { expectProblem } from './helpers/http-client.ts';
import { runScript } from './helpers/processes.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const undo of cleanup.splice(0)) await undo();
});

async function tempDir() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'deck-secrets-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function capturingLogger() {
  let text = '';
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  });
  return { logger: pino({ level: 'info' }, sink), text: () => text };
}

const config = (env: Record<string, string>) => loadConfig({ NODE_ENV: 'development', ...env });
const strongSecret = (letter: string) => letter.repeat(40);

describe('loadSecrets', () => {
  it('outside production, generates each secret once per DATA_DIR into a 0600 file, and says so without the value', async () => {
    const dataDir = await tempDir();
    const first = capturingLogger();
    const secrets = await loadSecrets(config({ DATA_DIR: dataDir }), first.logger);
    const storageFile = path.join(dataDir, 'secrets', 'storage-signing-secret');
    expect((await stat(storageFile)).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(dataDir, 'secrets'))).mode & 0o077).toBe(0);
    const storageSecret = secrets.get('storageSigning');
    expect(storageSecret.length).toBeGreaterThanOrEqual(32);
    expect((await readFile(storageFile, 'utf8')).trim()).toBe(storageSecret);
    expect(first.text().split('\n').filter(Boolean)).toHaveLength(1);
    expect(first.text()).toContain(storageFile);
    expect(first.text()).not.toContain(storageSecret);
    expect(JSON.stringify(secrets)).not.toContain(storageSecret);

    const encryptionFile = path.join(dataDir, 'secrets', 'encryption-key');
    expect((await stat(encryptionFile)).mode & 0o777).toBe(0o600);
    const encryptionKey = secrets.get('encryption');
    expect(encryptionKey).not.toBe(storageSecret);
    expect(first.text()).toContain(encryptionFile);
    expect(first.text()).not.toContain(encryptionKey);

    // The next start reads the same values; nothing left behind but the files.
    const again = await loadSecrets(config({ DATA_DIR: dataDir }), capturingLogger().logger);
    expect(again.get('storageSigning')).toBe(storageSecret);
    expect(again.get('encryption')).toBe(encryptionKey);
    expect((await readdir(path.join(dataDir, 'secrets'))).sort()).toEqual([
      'encryption-key',
      'storage-signing-secret',
    ]);
  });

  it('gives processes starting together on one DATA_DIR the same secret', async () => {
    const dataDir = await tempDir();
    const all = await Promise.all(
      Array.from({ length: 8 }, () => loadSecrets(config({ DATA_DIR: dataDir }), capturingLogger().logger)),
    );
    expect(new Set(all.map((s) => s.get('storageSigning'))).size).toBe(1);
  });

  it('uses the environment variables when set, and writes no file', async () => {
    const dataDir = await tempDir();
    const { logger, text } = capturingLogger();
    const secrets = await loadSecrets(
      config({
        DATA_DIR: dataDir,
        STORAGE_SIGNING_SECRET: strongSecret('t'),
        ENCRYPTION_KEY: strongSecret('e'),
      }),
      logger,
    );
    expect(secrets.get('storageSigning')).toBe(strongSecret('t'));
    expect(secrets.get('encryption')).toBe(strongSecret('e'));
    await expect(stat(path.join(dataDir, 'secrets'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(text()).toBe('');
  });

  it('refuses to start in production without them, naming the variables, never generating one', async () => {
    const dataDir = await tempDir();
    const attempt = loadSecrets(
      config({ NODE_ENV: 'production', DATA_DIR: dataDir }),
      capturingLogger().logger,
    );
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    const error = (await attempt.catch((e: unknown) => e)) as ConfigError;
    expect(error.problems.map((p) => p.split(':')[0])).toEqual(['STORAGE_SIGNING_SECRET', 'ENCRYPTION_KEY']);
    expect(error.message).toMatch(/required in production/);
    await expect(stat(path.join(dataDir, 'secrets'))).rejects.toMatchObject({ code: 'ENOENT' });

    // With the S3 driver the store signs its own addresses: no storage signing secret is needed.
    const s3 = await loadSecrets(
      config({
        NODE_ENV: 'production',
        DATA_DIR: dataDir,
        STORAGE_DRIVER: 's3',
        S3_BUCKET: 'bucket',
        S3_ACCESS_KEY_ID: 'id',
        S3_SECRET_ACCESS_KEY: 'key',
        ENCRYPTION_KEY: strongSecret('e'),
      }),
      capturingLogger().logger,
    );
    expect(() => s3.get('storageSigning')).toThrow(/STORAGE_SIGNING_SECRET is not available/);
  });

  it('refuses a short value and a secret file others can read', async () => {
    const dataDir = await tempDir();
    expect(() => config({ STORAGE_SIGNING_SECRET: 'short' })).toThrow(
      /STORAGE_SIGNING_SECRET: must be at least 32 characters/,
    );

    await loadSecrets(config({ DATA_DIR: dataDir }), capturingLogger().logger);
    const file = path.join(dataDir, 'secrets', 'storage-signing-secret');
    await chmod(file, 0o644);
    await expect(loadSecrets(config({ DATA_DIR: dataDir }), capturingLogger().logger)).rejects.toThrow(
      /STORAGE_SIGNING_SECRET: .*storage-signing-secret is accessible to other users \(mode 644\)/,
    );
    await writeFile(file, 'too short\n', { mode: 0o600 });
    await chmod(file, 0o600);
    await expect(loadSecrets(config({ DATA_DIR: dataDir }), capturingLogger().logger)).rejects.toThrow(
      /holds fewer than 32 characters/,
    );
  });

  it('npm start in production without STORAGE_SIGNING_SECRET and ENCRYPTION_KEY exits 1 naming both, before opening anything', async () => {
    const dataDir = await tempDir();
    const result = await runScript('app/main.ts', [], {
      NODE_ENV: 'production',
      DATA_DIR: dataDir,
      PORT: '0',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/STORAGE_SIGNING_SECRET: is required in production/);
    expect(result.stderr).toMatch(/ENCRYPTION_KEY: is required in production/);
    // Neither a database cluster nor a secret file was created.
    expect(await readdir(dataDir)).toEqual([]);
  });
});

describe('storage addresses cannot be forged with a value from the source', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  // The development default the service used to fall back on (app/config.ts before this fix).
  const formerDefault = 'dev-only-session-secret-change-me-in-production';
  const formerKey = Buffer.from(
    hkdfSync('sha256', formerDefault, 'deck-service', 'local object storage signatures', 32),
  );

  it('refuses a PUT and a GET signed with the former default, and writes nothing', async () => {
    const victim = await t.signedInClient();
    const key = `org/${victim.organizationId}/kb/00000000-0000-4000-8000-000000000000/evil.txt`;
    const expires = String(Math.floor(Date.now() / 1000) + 600);
    for (const encode of [(f: string[]) => f.join('\n'), (f: string[]) => JSON.stringify(f)]) {
      const sign = (fields: string[]) =>
        createHmac('sha256', formerKey).update(encode(fields)).digest('base64url');
      const put = new URLSearchParams({
        method: 'PUT',
        expires,
        contentType: 'text/plain',
        maxBytes: '1000000000',
      });
      put.set('signature', sign(['PUT', key, expires, 'text/plain', '1000000000']));
      const response = await t.client().request('PUT', `/storage/${key}?${put}`, {
        body: 'forged',
        headers: { 'content-type': 'text/plain' },
      });
      expectProblem(response, 403, 'FORBIDDEN');
      const get = new URLSearchParams({ method: 'GET', expires });
      get.set('signature', sign(['GET', key, expires, '', '']));
      expectProblem(await t.client().get(`/storage/${key}?${get}`), 403, 'FORBIDDEN');
    }
    expect(await t.app.services.storage.head(key)).toBeNull();
  });

  it('gives the test app its own generated secret in its own DATA_DIR', async () => {
    const { dataDir } = t.app.config;
    expect(dataDir.startsWith(os.tmpdir())).toBe(true);
    const file = path.join(dataDir, 'secrets', 'storage-signing-secret');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const secret = (await readFile(file, 'utf8')).trim();
    expect(t.logs()).toContain(file);
    expect(t.logs()).not.toContain(secret);
  });
});
