import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INPUT_DEPTH, MAX_INPUT_NODES, MAX_OBJECT_MEMBERS } from '../routers/shared.schema.ts';
import { HttpClient } from './helpers/http-client.ts';
import type { LoopStalls } from './helpers/loop-probe.ts';
import { runScript, startServerProcess } from './helpers/processes.ts';
import { createTestDatabase } from './helpers/test-app.ts';

/**
 * The cost bound of every input path (issue: "no anonymous request may stall the service"):
 * every operation of the OpenAPI document, over REST and over /trpc, anonymous and signed in
 * as an owner, is sent the worst body of each kind — at the size limit, just past each
 * structural limit, and at them — while a probe inside the service (`helpers/loop-probe.ts`,
 * its own process) measures how long any one request held the event loop. None may hold it
 * more than 50 ms, and no answer may pass 16 KB.
 */
const STALL_LIMIT_MS = 50;
const ANSWER_LIMIT_BYTES = 16 * 1024;
const BODY_LIMIT_BYTES = 1024 * 1024;

/** A JSON text of about `bytes` bytes: `{"k0":0,"k1":0,…}`, as wide as it gets. */
function wideObject(bytes: number, value = '0'): string {
  const members: string[] = [];
  let size = 2;
  for (let i = 0; size < bytes - 40; i += 1) {
    const member = `"k${i}":${value}`;
    members.push(member);
    size += member.length + 1;
  }
  return `{${members.join(',')}}`;
}

/** Objects nested `levels` deep under 100-character names, the innermost holding 20 NUL strings. */
function deepNamedPaths(levels: number): string {
  const name = (i: number) => String(i).padStart(3, '0') + 'k'.repeat(97);
  let inner = `{${Array.from({ length: 20 }, (_, i) => `"${name(900 + i)}":"\\u0000"`).join(',')}}`;
  for (let depth = levels - 1; depth >= 1; depth -= 1) inner = `{"${name(depth)}":${inner}}`;
  return inner;
}

/** Every kind of worst body, whatever the operation: each near the 1 MiB limit or past a structural one. */
function hostileBodies(): Record<string, string> {
  const nearLimit = BODY_LIMIT_BYTES - 64;
  const longText = 'x'.repeat(nearLimit - 20);
  return {
    // The finding: ~90,000 unknown members in one object.
    'wide object': wideObject(nearLimit),
    // As wide as allowed, each member a long string.
    'object at the member limit': `{${Array.from({ length: MAX_OBJECT_MEMBERS }, (_, i) => `"f${i}":"${'y'.repeat(Math.floor(nearLimit / MAX_OBJECT_MEMBERS) - 12)}"`).join(',')}}`,
    'deep arrays': `{"a":${'['.repeat(nearLimit - 10)}`,
    'deep objects at the limit': `${'{"a":'.repeat(MAX_INPUT_DEPTH - 1)}{}${'}'.repeat(MAX_INPUT_DEPTH - 1)}`,
    'long array': `{"a":[${'0,'.repeat(Math.floor(nearLimit / 2) - 10)}0]}`,
    'array at the node limit': `{"a":[${Array.from({ length: MAX_INPUT_NODES - 10 }, () => '"not-a-uuid"').join(',')}]}`,
    'long field name': `{"${longText}":1}`,
    'long string': `{"a":"${longText}"}`,
    'lone surrogates': `{"a":"${'\\ud800'.repeat(Math.floor(nearLimit / 6) - 10)}"}`,
    'NUL characters': `{"a":"${'\\u0000'.repeat(Math.floor(nearLimit / 6) - 10)}"}`,
    'huge numbers': `{"a":[${Array.from({ length: 10_000 }, () => '1e999').join(',')}]}`,
    'duplicate names': `{${Array.from({ length: MAX_OBJECT_MEMBERS }, () => '"a":0').join(',')}}`,
    'unterminated string': `{"a":"${longText}`,
    // Names as long and paths as deep as allowed, each ending in values that fail: the answer's
    // issues must stay small however long their paths could be.
    'deep paths of long names': deepNamedPaths(MAX_INPUT_DEPTH),
  };
}

/**
 * Bodies aimed at one operation's own fields: each field given a long array of bad items (the
 * most issues a schema can be made to report), a long string, and a wide object.
 */
function fieldBodies(fields: string[]): Record<string, string> {
  const bodies: Record<string, string> = {};
  for (const field of fields.slice(0, 8)) {
    const items = Array.from({ length: 10_000 }, (_, i) => `"bad-${i}"`).join(',');
    bodies[`${field}: many bad items`] = `{"${field}":[${items}]}`;
    bodies[`${field}: many bad numbers`] =
      `{"${field}":[${Array.from({ length: 10_000 }, () => '-1').join(',')}]}`;
    bodies[`${field}: long string`] = `{"${field}":"${'z'.repeat(BODY_LIMIT_BYTES - field.length - 64)}"}`;
    bodies[`${field}: wide object`] = `{"${field}":${wideObject(BODY_LIMIT_BYTES / 4)}}`;
  }
  return bodies;
}

interface Operation {
  method: string;
  /** The REST path with every parameter filled in. */
  path: string;
  procedure: string;
  fields: string[];
}

describe('the cost of any input is bounded', () => {
  let server: { child: ChildProcess; url: string; exited: Promise<number | null> };
  let dataDir: string;
  let owner: HttpClient;
  let operations: Operation[];

  /** The longest stall since the last ask. */
  const stalls = () =>
    new Promise<LoopStalls>((resolve) => {
      server.child.once('message', (message) => resolve(message as LoopStalls));
      server.child.send('loop-stalls');
    });

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'deck-input-cost-'));
    const env = {
      DATABASE_URL: await createTestDatabase(),
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SEED_DEMO: 'false',
      RATE_LIMIT_PER_MINUTE: '1000000',
      HEAVY_LIMIT_PER_MINUTE: '1000000',
    };
    server = await startServerProcess(env, {
      nodeArgs: ['--import', './test/helpers/loop-probe.ts'],
      ipc: true,
    });
    const email = `owner-${randomUUID()}@example.test`;
    const password = 'a-long-password-for-cost';
    const created = await runScript(
      'scripts/admin.ts',
      ['create-user', '--organization', 'Cost', '--email', email],
      env,
      `${password}\n`,
    );
    expect(created.code, created.stderr).toBe(0);
    owner = new HttpClient(server.url);
    expect((await owner.post('/api/auth/login', { email, password })).status).toBe(200);

    const document = (await owner.get('/api/openapi.json')).body as {
      paths: Record<
        string,
        Record<
          string,
          {
            operationId: string;
            requestBody?: { content: Record<string, { schema?: { properties?: object } }> };
          }
        >
      >;
    };
    operations = Object.entries(document.paths).flatMap(([template, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method: method.toUpperCase(),
        path: `/api${template.replace(/\{\w+\}/g, () => randomUUID())}`,
        procedure: operation.operationId.replace('-', '.'),
        fields: Object.keys(operation.requestBody?.content['application/json']?.schema?.properties ?? {}),
      })),
    );
  }, 120_000);

  afterAll(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Sends one body; the answer must be small. */
  async function send(
    client: HttpClient,
    method: string,
    url: string,
    body: string | undefined,
    label: string,
  ) {
    const response = await client
      .request(method, url, {
        body,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
      })
      .catch((error: Error) => {
        // A body refused by its declared length (a 413 before a byte of it is read) is answered
        // and its connection closed while the client still writes: fetch sees the closed pipe.
        const code = (error.cause as { code?: string } | undefined)?.code;
        if (code === 'EPIPE' || code === 'ECONNRESET') return null;
        throw error;
      });
    if (response) {
      expect(response.status, `${label}: ${response.text.slice(0, 300)}`).toBeLessThan(500);
      expect(Buffer.byteLength(response.text), `${label}: answer size`).toBeLessThan(ANSWER_LIMIT_BYTES);
    }
    const { longestStallMs, longestGcMs } = await stalls();
    if (longestStallMs > worst.stallMs) worst = { stallMs: longestStallMs, label };
    if (process.env.COST_TRACE) {
      console.log(label, longestStallMs.toFixed(1), longestGcMs.toFixed(1), response?.status ?? 'closed');
    }
  }
  let worst = { stallMs: 0, label: '' };

  /** Runs `walk`, then asserts no request of it held the event loop past the limit. */
  async function withinStallLimit(walk: () => Promise<void>) {
    await stalls();
    worst = { stallMs: 0, label: '' };
    await walk();
    expect(
      worst.stallMs,
      `longest stall ${worst.stallMs.toFixed(1)} ms, by ${worst.label}`,
    ).toBeLessThanOrEqual(STALL_LIMIT_MS);
  }

  it('refuses each structural limit with a short problem, before parsing', async () => {
    const bodies = hostileBodies();
    const expectations: Record<string, [number, string | RegExp]> = {
      'wide object': [400, `more than ${MAX_OBJECT_MEMBERS} fields`],
      'deep arrays': [400, `nested more than ${MAX_INPUT_DEPTH} levels deep`],
      'long array': [413, `more than ${MAX_INPUT_NODES} values`],
      'duplicate names': [400, 'names a field twice'],
    };
    for (const [kind, [status, detail]] of Object.entries(expectations)) {
      // (Not sign-in: its body is capped at 16 KiB, below these.)
      const response = await owner.request('POST', '/api/decks', {
        body: bodies[kind],
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status, kind).toBe(status);
      expect(response.body.detail, kind).toMatch(detail);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
    }
    // At the limits, the body is read and judged by its schema.
    const atLimits = `{"email":"a@example.test","password":"x",${Array.from({ length: MAX_OBJECT_MEMBERS - 2 }, (_, i) => `"k${i}":[[0]]`).join(',')}}`;
    const response = await owner.request('POST', '/api/auth/login', {
      body: atLimits,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.body.detail).toBe('The request is not valid: see issues');
    expect(response.body.issues).toHaveLength(20);
  });

  it('holds no request to any REST operation past 50 ms, anonymous or signed in', async () => {
    const anonymous = new HttpClient(server.url);
    const bodies = hostileBodies();
    // A query's input is its URL: many names, and one name repeated as often as the header limit lets it.
    const hostileQueries = [
      Array.from({ length: 700 }, (_, i) => `limit=${i}&q${i}=1`).join('&'),
      'a&'.repeat(7_900),
    ];
    await withinStallLimit(async () => {
      for (const operation of operations) {
        if (operation.method === 'GET') {
          for (const query of hostileQueries) {
            await send(owner, 'GET', `${operation.path}?${query}`, undefined, `GET ${operation.path}`);
            await send(
              anonymous,
              'GET',
              `${operation.path}?${query}`,
              undefined,
              `anonymous ${operation.path}`,
            );
          }
          continue;
        }
        const own = { ...bodies, ...fieldBodies(operation.fields) };
        for (const [kind, body] of Object.entries(own)) {
          const label = `${operation.method} ${operation.path} (${kind})`;
          await send(owner, operation.method, operation.path, body, label);
        }
        await send(
          anonymous,
          operation.method,
          operation.path,
          bodies['wide object']!,
          `anonymous ${operation.path}`,
        );
      }
      // The local storage driver's signed addresses are read by anyone.
      for (const query of hostileQueries) {
        await send(anonymous, 'GET', `/storage/org/x/y?${query}`, undefined, 'storage address');
      }
    });
    // The walk changed nothing it should not have: the owner is still signed in.
    expect((await owner.get('/api/auth/me')).status).toBe(200);
  }, 600_000);

  it('holds no request to any /trpc procedure past 50 ms, single or batched', async () => {
    const anonymous = new HttpClient(server.url);
    const bodies = hostileBodies();
    await withinStallLimit(async () => {
      for (const operation of operations) {
        const own = { ...bodies, ...fieldBodies(operation.fields) };
        for (const [kind, body] of Object.entries(own)) {
          const label = `/trpc/${operation.procedure} (${kind})`;
          await send(owner, 'POST', `/trpc/${operation.procedure}`, body, label);
        }
        const batch = `{"0":${bodies['object at the member limit']}}`;
        await send(
          owner,
          'POST',
          `/trpc/${operation.procedure}?batch=1`,
          batch,
          `batched ${operation.procedure}`,
        );
        await send(
          anonymous,
          'POST',
          `/trpc/${operation.procedure}`,
          bodies['wide object']!,
          `anonymous ${operation.procedure}`,
        );
      }
      // A query's input travels in the URL: as long and as deep as the header limit lets it be.
      const deepQuery = encodeURIComponent(`{"0":${'['.repeat(4000)}`);
      await send(
        owner,
        'GET',
        `/trpc/decks.listDecks?batch=1&input=${deepQuery}`,
        undefined,
        'deep query input',
      );
      await send(
        anonymous,
        'GET',
        `/trpc/auth.getCurrentUser?${'a&'.repeat(7_900)}`,
        undefined,
        'repeated query name',
      );
      await send(anonymous, 'GET', `/trpc/${'a'.repeat(15_000)}`, undefined, 'long procedure path');
    });
  }, 600_000);
});
