import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectRoot, runScript } from './helpers/processes.ts';
import { createTestDatabase } from './helpers/test-app.ts';

/**
 * The README walks a newcomer along the path of one JSON request, naming every file it crosses.
 * `npm run request-path` measures that path (the files whose functions run, in a plain Node
 * process); this keeps the README's list equal to it and the path short.
 */
/**
 * At most this many files a route (issue 40 asks 20 of a create on both transports; REST's create
 * still crosses 22: its route, its input and its idempotency are three files tRPC's does not need).
 */
const MOST_FILES: Record<string, number> = {
  'POST /api/decks/{deckId}/slides': 20,
  'POST /trpc/slides.createSlide': 20,
  'PUT /api/decks/{deckId}/slides/reorder': 21,
  'GET /api/auth/me': 15,
};
let measured: Record<string, string[]>;
let readme: string;

beforeAll(async () => {
  const run = await runScript('scripts/request-path.ts', ['--json'], {
    DATABASE_URL: await createTestDatabase(),
  });
  expect(run.code, run.stderr).toBe(0);
  measured = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
  readme = await readFile(path.join(projectRoot, 'README.md'), 'utf8');
}, 120_000);

/** The files the README names between `<!-- request-path: ROUTE -->` and `<!-- /request-path -->`. */
function filesNamedByReadme(route: string): string[] {
  const start = readme.indexOf(`<!-- request-path: ${route} -->`);
  expect(start, `README.md has no request-path block for ${route}`).toBeGreaterThanOrEqual(0);
  const end = readme.indexOf('<!-- /request-path -->', start);
  const block = readme.slice(start, end);
  return [
    ...new Set(
      [...block.matchAll(/`((?:app|adapters|domain|routers|rest|entities)\/[\w/.-]+\.ts)`/g)].map(
        (m) => m[1]!,
      ),
    ),
  ].sort();
}

describe('the path of one JSON request', () => {
  it.each(Object.entries(MOST_FILES))('%s crosses at most %i files', (route, most) => {
    expect(measured[route]!.length).toBeGreaterThan(5); // the measurement saw the request
    expect(measured[route]!.length, measured[route]!.join('\n')).toBeLessThanOrEqual(most);
  });

  it.each(['POST /api/decks/{deckId}/slides', 'POST /trpc/slides.createSlide'])(
    'the README names every file of %s, and no other',
    (route) => {
      expect(filesNamedByReadme(route)).toEqual(measured[route]);
    },
  );
});
