import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../adapters/secret-box.ts';
import { startProgress } from '../bench/progress.ts';
import { migrationsFor } from '../migrations/index.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

// Only their names and order are read here; the box is never asked to seal.
const migrations = migrationsFor(createSecretBox(randomBytes(32).toString('base64url')));

/** A stream that keeps what is written to it; `isTTY` as a terminal or a pipe would say. */
function sink(isTTY: boolean) {
  let text = '';
  const stream = Object.assign(
    new Writable({
      write(chunk, _encoding, callback) {
        text += chunk.toString();
        callback();
      },
    }),
    { isTTY, columns: 120 },
  );
  return { stream, text: () => text };
}

describe('progress of long operator commands', () => {
  it('prints a line at every tenth of the work without a terminal, and at least every interval', () => {
    let clock = 0;
    const out = sink(false);
    const progress = startProgress('loading events', 1_000_000, {
      stream: out.stream,
      everyMs: 10_000,
      now: () => clock,
    });
    for (let done = 25_000; done <= 1_000_000; done += 25_000) {
      clock += 100;
      progress.update(done);
    }
    progress.stop();
    const lines = out.text().trim().split('\n');
    expect(lines[0]).toBe('loading events: 0 of 1,000,000');
    expect(lines.slice(1, -1)).toEqual(
      Array.from({ length: 10 }, (_, i) => {
        const done = (i + 1) * 100_000;
        return `loading events: ${done.toLocaleString('en')} of 1,000,000 (${(i + 1) * 10} %), ${((i + 1) * 0.4).toFixed(1)} s`;
      }),
    );
    expect(lines.at(-1)).toBe('loading events: done in 4.0 s');

    // Slow work: a line every interval even when no tenth is crossed.
    const slow = sink(false);
    clock = 0;
    const crawling = startProgress('walking rows', 1_000, {
      stream: slow.stream,
      everyMs: 10_000,
      now: () => clock,
    });
    for (let done = 1; done <= 30; done++) {
      clock += 1_000;
      crawling.update(done);
    }
    expect(slow.text().trim().split('\n').slice(1)).toEqual([
      'walking rows: 10 of 1,000 (1 %), 10.0 s',
      'walking rows: 20 of 1,000 (2 %), 20.0 s',
      'walking rows: 30 of 1,000 (3 %), 30.0 s',
    ]);
  });

  it('draws a bar on a terminal', () => {
    const out = sink(true);
    const progress = startProgress('loading events', 200_000, { stream: out.stream });
    progress.update(100_000);
    progress.stop();
    const screen = stripVTControlCharacters(out.text());
    expect(screen).toMatch(/loading events \[[█░]+\] 50% \| 100,000\/200,000/);
    expect(out.text()).not.toContain('\nloading events:');
  });
});

describe('migrations', () => {
  let t: TestApp;
  afterAll(() => t?.close());

  it('log each migration when it starts and when it is applied, with its duration', async () => {
    t = await startTestApp();
    const lines = t
      .logs()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; migration?: string; ms?: number });
    for (const { name } of migrations) {
      const starting = lines.findIndex((l) => l.msg === 'applying migration' && l.migration === name);
      const applied = lines.findIndex((l) => l.msg === 'migration applied' && l.migration === name);
      expect(starting).toBeGreaterThanOrEqual(0);
      expect(applied).toBeGreaterThan(starting);
      expect(lines[applied]!.ms).toEqual(expect.any(Number));
    }
  });
});
