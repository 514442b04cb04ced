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
// 20 after issue 23; 21 since the rate limit is counted in PostgreSQL for every instance (issue 26),
// by the group commit of domain/group-commit.ts.
const MOST_FILES = 21;
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
  it.each(['PUT /api/decks/{deckId}/slides/reorder', 'GET /api/auth/me'])(
    `%s crosses at most ${MOST_FILES} files`,
    (route) => {
      expect(measured[route]!.length).toBeGreaterThan(5); // the measurement saw the request
      expect(measured[route]!.length, measured[route]!.join('\n')).toBeLessThanOrEqual(MOST_FILES);
    },
  );

  it('the README names every file of the reorder request, and no other', () => {
    expect(filesNamedByReadme('PUT /api/decks/{deckId}/slides/reorder')).toEqual(
      measured['PUT /api/decks/{deckId}/slides/reorder'],
    );
  });
});
