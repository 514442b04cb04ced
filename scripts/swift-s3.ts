import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { freeLoopbackPort as freePort } from '../adapters/database/embedded-postgres.ts';

/**
 * A real S3 implementation on loopback (`npm run cluster` with `STORAGE_DRIVER=s3` and no
 * `S3_ENDPOINT`, and the tests of the S3 store): OpenStack Swift (Debian packages) with its s3api
 * middleware and tempauth, one node, one replica. It checks SigV4 signatures, presigned
 * URLs and their expiry for real. Credentials: `test:tester` / `testing`.
 */
export async function startSwiftS3() {
  if (!existsSync('/usr/bin/swift-proxy-server')) {
    throw new Error(
      "No Swift here: install Debian's swift, swift-proxy, swift-account, swift-container and swift-object (see .ci/run)",
    );
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'deck-swift-'));
  const etc = path.join(dir, 'etc');
  const devices = path.join(dir, 'node');
  await mkdir(etc, { recursive: true });
  await mkdir(path.join(devices, 'sdb1'), { recursive: true });
  const user = os.userInfo().username;
  const ports = {
    object: await freePort(),
    container: await freePort(),
    account: await freePort(),
    proxy: await freePort(),
  };

  await writeFile(
    path.join(etc, 'swift.conf'),
    '[swift-hash]\nswift_hash_path_suffix = decktest\nswift_hash_path_prefix = decktest\n[storage-policy:0]\nname = gold\ndefault = yes\n',
  );
  for (const kind of ['account', 'container', 'object'] as const) {
    await writeFile(
      path.join(etc, `${kind}-server.conf`),
      [
        '[DEFAULT]',
        `devices = ${devices}`,
        'mount_check = false',
        'bind_ip = 127.0.0.1',
        `bind_port = ${ports[kind]}`,
        'workers = 1',
        `user = ${user}`,
        `swift_dir = ${etc}`,
        '[pipeline:main]',
        `pipeline = ${kind}-server`,
        `[app:${kind}-server]`,
        `use = egg:swift#${kind}`,
        `[${kind}-replicator]`,
        `[${kind}-auditor]`,
        ...(kind === 'account' ? [] : [`[${kind}-updater]`]),
        '',
      ].join('\n'),
    );
    const builder = path.join(etc, `${kind}.builder`);
    execFileSync('swift-ring-builder', [builder, 'create', '6', '1', '1'], { stdio: 'ignore' });
    execFileSync('swift-ring-builder', [builder, 'add', `r1z1-127.0.0.1:${ports[kind]}/sdb1`, '1'], {
      stdio: 'ignore',
    });
    execFileSync('swift-ring-builder', [builder, 'rebalance'], { stdio: 'ignore' });
  }
  await writeFile(
    path.join(etc, 'proxy-server.conf'),
    [
      '[DEFAULT]',
      'bind_ip = 127.0.0.1',
      `bind_port = ${ports.proxy}`,
      'workers = 1',
      `user = ${user}`,
      `swift_dir = ${etc}`,
      '[pipeline:main]',
      'pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy proxy-logging proxy-server',
      '[app:proxy-server]',
      'use = egg:swift#proxy',
      'account_autocreate = true',
      ...['catch_errors', 'gatekeeper', 'healthcheck', 'proxy_logging', 'listing_formats', 'copy'].flatMap(
        (name) => [`[filter:${name.replace('_logging', '-logging')}]`, `use = egg:swift#${name}`],
      ),
      '[filter:cache]',
      'use = egg:swift#memcache',
      '[filter:s3api]',
      'use = egg:swift#s3api',
      'location = us-east-1',
      '[filter:tempauth]',
      'use = egg:swift#tempauth',
      'user_test_tester = testing .admin',
      '',
    ].join('\n'),
  );

  const processes: ChildProcess[] = ['account', 'container', 'object', 'proxy'].map((kind) =>
    spawn(`swift-${kind}-server`, [path.join(etc, `${kind}-server.conf`)], { stdio: 'ignore' }),
  );
  const endpoint = `http://127.0.0.1:${ports.proxy}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const healthy = await fetch(`${endpoint}/healthcheck`).then(
      (r) => r.ok,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline) throw new Error('Swift did not start within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const accessKeyId = 'test:tester';
  const secretAccessKey = 'testing';
  return {
    endpoint,
    accessKeyId,
    secretAccessKey,
    /** Creates a bucket, retried while the account and container servers are still starting. */
    async createBucket(bucket: string) {
      const client = new S3Client({
        endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId, secretAccessKey },
      });
      // The proxy's healthcheck can answer before the account and container servers do.
      const until = Date.now() + 30_000;
      for (;;) {
        try {
          await client.send(new CreateBucketCommand({ Bucket: bucket }));
          return;
        } catch (error) {
          if (Date.now() > until) throw error;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    },
    async stop() {
      for (const child of processes) child.kill('SIGTERM');
      await Promise.all(
        processes.map(
          (child) =>
            new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve))),
        ),
      );
      await rm(dir, { recursive: true, force: true });
    },
  };
}
