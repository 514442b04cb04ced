import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../rest/openapi-document.ts';
import { createFingerprinter } from './helpers/fuzz/fingerprint.ts';
import {
  boundaryIntegerExamples,
  examplesFor,
  type Operation,
  operationsOf,
  type RequestSpec,
  requestArb,
} from './helpers/fuzz/requests.ts';
import { preview } from './helpers/fuzz/values.ts';
import { type Violation, Walker } from './helpers/fuzz/walker.ts';
import { describeBody } from './helpers/fuzz/wire.ts';
import { createOrganization, newMarker, secretsOf } from './helpers/fuzz/world.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * Property-based walk of every operation of /api/openapi.json (issue 9, "keep finding them").
 * For each operation it generates requests — valid ones, and ones wrong in type, bounds,
 * unicode, nesting, fields, media type, method, session and ids (malformed, unknown, and the
 * other organization's real ones) — and checks what every answer must satisfy: no 5xx, errors
 * as RFC 9457 problems, nothing changed by a refused request or a read, the other
 * organization's data never shown or changed, and its ids answered exactly like missing ones.
 *
 * Budget: `npm test` runs a small fixed share (seeded, deterministic). `npm run fuzz` runs
 * FUZZ_RUNS requests (default 5000) from a random seed it prints; replay a failure with
 * FUZZ_SEED=<seed> FUZZ_RUNS=<runs>. FUZZ_COLLECT=1 keeps going after a failure and lists
 * every distinct one (FUZZ_REPORT=<file> also writes them as JSON).
 */

const fuzzing = process.env.FUZZ_RUNS !== undefined;
const totalRuns = Number(process.env.FUZZ_RUNS ?? 250);
const seed = process.env.FUZZ_SEED
  ? Number(process.env.FUZZ_SEED)
  : fuzzing
    ? Math.floor(Math.random() * 2 ** 31)
    : 20_261_121;
const collect = process.env.FUZZ_COLLECT === '1';
// Generous: `npm test` runs files side by side on a small machine; a stalled event loop takes longer.
const slowMs = Number(process.env.FUZZ_SLOW_MS ?? 10_000);
const timeoutMs = Number(process.env.FUZZ_TIMEOUT_MS ?? 30_000);

// The operations are known when the file is collected (one test each); the served document,
// read in beforeAll, must list the same ones, and its schemas are what the requests are made from.
const operations = operationsOf(buildOpenApiDocument() as unknown as Record<string, any>);
const runsPerOperation = Math.max(1, Math.round(totalRuns / operations.length));
const testTimeout = 120_000 + runsPerOperation * 3_000;

let t: TestApp;
let walker: Walker;
let document: Record<string, any>;
let dataDir: string;
const collected: { operation: string; spec: string; violation: Violation }[] = [];

function seedFor(operation: Operation): number {
  let hash = seed | 0;
  for (const char of operation.key) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

/** How many answers the walk has judged so far. */
function answered(w: Walker): number {
  let count = 0;
  for (const counts of w.statuses.values()) for (const n of counts.values()) count += n;
  return count;
}

function describeSpec(spec: RequestSpec): string {
  return `actor=${spec.actor} method=${spec.method} params=${preview(spec.params, 200)} query=${preview(spec.query, 300)} body=${describeBody(spec.body)}${spec.body.kind === 'json' ? ` ${preview(spec.body.value)}` : ''}${spec.chunked ? ' (chunked)' : ''}`;
}

function describeViolations(violations: Violation[]): string {
  return violations
    .map((v) => `[${v.rule}] ${v.message}\n  request: ${v.request}\n  answer: ${v.response}`)
    .join('\n');
}

beforeAll(async () => {
  console.info(
    `fuzz: seed=${seed} runs=${runsPerOperation * operations.length} (${runsPerOperation} per operation) — replay: FUZZ_SEED=${seed} FUZZ_RUNS=${totalRuns} npx vitest run test/fuzz.test.ts`,
  );
  dataDir = mkdtempSync(path.join(tmpdir(), 'deck-fuzz-'));
  t = await startTestApp({
    DATA_DIR: dataDir,
    // No background work: the database changes only through the request being judged.
    NOTIFICATIONS_ENABLED: 'false',
    GENERATION_ENABLED: 'false',
    EXPORTS_ENABLED: 'false',
    // The export sweep (it removes the exports of deleted decks) runs at the start only.
    EXPORT_SWEEP_INTERVAL_MS: String(24 * 3600 * 1000),
    // The walk signs in and fails to sign in many times; the throttle has its own tests.
    LOGIN_MAX_FAILURES_PER_EMAIL_AND_ADDRESS: '1000000',
    LOGIN_BACKOFF_AFTER_FAILURES_PER_EMAIL: '1000000',
    LOGIN_MAX_FAILURES_PER_ADDRESS: '1000000',
    IMAGE_MAX_BYTES: String(64 * 1024),
    // Speech (a worker per answer) gives up at once unless told otherwise: FAQs are saved either way.
    SPEECH_TIMEOUT_MS: process.env.SPEECH_TIMEOUT_MS ?? '100',
    LOG_LEVEL: 'warn',
  });
  document = (await t.client().get('/api/openapi.json')).body;
  const ownMarker = newMarker();
  const foreignMarker = newMarker();
  const own = await createOrganization(t, 'Walker', ownMarker);
  const foreign = await createOrganization(t, 'Bystander', foreignMarker);
  const secrets = await secretsOf(t, foreign, foreignMarker);
  walker = new Walker({
    t,
    own,
    ownMarker,
    foreign,
    secrets,
    fingerprinter: await createFingerprinter(t, dataDir, {
      organizationId: foreign.organizationId,
      ids: secrets.ids,
    }),
    slowMs,
    timeoutMs,
    document,
  });
  await walker.start();
}, 180_000);

afterAll(async () => {
  if (process.env.FUZZ_STATS === '1' && walker) {
    console.info(
      `fuzz: answers per operation (status×count):\n${[...walker.statuses]
        .map(
          ([key, counts]) =>
            `${key}: ${[...counts]
              .sort(([a], [b]) => a - b)
              .map(([status, n]) => `${status}×${n}`)
              .join(' ')}`,
        )
        .join('\n')}\nskipped (unsendable): ${walker.skipped}; timings: ${JSON.stringify(walker.timings)}`,
    );
  }
  if (collected.length > 0) {
    const distinct = new Map<string, (typeof collected)[number] & { count: number }>();
    for (const item of collected) {
      const status = item.violation.response.match(/^\d{3}/)?.[0] ?? '---';
      const key = `${item.operation} | ${item.violation.rule} | ${status}`;
      const seen = distinct.get(key);
      if (seen) seen.count += 1;
      else distinct.set(key, { ...item, count: 1 });
    }
    console.info(
      `fuzz: ${collected.length} violations, ${distinct.size} distinct (operation | rule | status):\n${[
        ...distinct,
      ]
        .map(
          ([key, item]) =>
            `${key} ×${item.count}\n  ${item.spec}\n  ${describeViolations([item.violation]).replace(/\n/g, '\n  ')}`,
        )
        .join('\n')}`,
    );
    if (process.env.FUZZ_REPORT)
      writeFileSync(process.env.FUZZ_REPORT, JSON.stringify([...distinct.values()], null, 2));
  }
  await t?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('fuzz walk of every operation of /api/openapi.json', () => {
  it('walks the operations the service documents', () => {
    expect(operationsOf(document).map((o) => o.key)).toEqual(operations.map((o) => o.key));
    expect(operations.map((o) => o.key)).toEqual(
      expect.arrayContaining([
        'POST /images',
        'POST /contracts/import',
        'PUT /decks/{deckId}/slides/reorder',
      ]),
    );
  });

  for (const operation of operations) {
    it(
      operation.key,
      async () => {
        const context = { document };
        const answersBefore = answered(walker);
        const checkedBefore = walker.checkedAgainstDocument;
        const property = fc.asyncProperty(requestArb(operation, context), async (spec) => {
          const violations = await walker.run(operation, spec);
          if (violations.length === 0) return true;
          if (collect) {
            for (const violation of violations)
              collected.push({ operation: operation.key, spec: describeSpec(spec), violation });
            return true;
          }
          throw new Error(describeViolations(violations));
        });
        // Every integer field at and past its column's bound, in addition to the share of runs.
        const boundaries = boundaryIntegerExamples(operation, context, seedFor(operation));
        const examples = [...examplesFor(operation, context, seedFor(operation)), ...boundaries];
        const details = await fc.check(property, {
          seed: seedFor(operation),
          numRuns: runsPerOperation + boundaries.length,
          examples: examples.map((spec) => [spec]),
          // Report what was found (shrunk so far) rather than hit the test's own timeout.
          interruptAfterTimeLimit: testTimeout - 30_000,
          markInterruptAsFailure: false,
        });
        if (details.failed) {
          const [spec] = details.counterexample ?? [];
          const error = details.errorInstance as Error | undefined;
          throw new Error(
            `${operation.key} failed after ${details.numRuns} runs, shrunk ${details.numShrinks} times` +
              ` (FUZZ_SEED=${seed} FUZZ_RUNS=${totalRuns}; fast-check seed ${details.seed}, path ${details.counterexamplePath})\n` +
              `generated: ${spec ? describeSpec(spec) : '?'}\n${error?.message ?? String(details.errorInstance)}`,
          );
        }
        // Every answer was checked against the document (none slipped past the check).
        expect(walker.checkedAgainstDocument - checkedBefore).toBe(answered(walker) - answersBefore);
        // Nothing the walk sent may have ended the caller's own session.
        const me = await walker.options.own.client.request('GET', '/api/auth/me', {
          headers: { cookie: walker.options.own.cookie },
        });
        expect(me.status, 'the walker is still signed in').toBe(200);
      },
      testTimeout,
    );
  }
});
