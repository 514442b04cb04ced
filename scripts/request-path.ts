/**
 * `npm run request-path`: the service's files a request crosses, from Koa to SQL, for the routes
 * the README's architecture section walks through. The app runs in this process (plain Node, as
 * in production) on DATABASE_URL or a throw-away embedded PostgreSQL; V8's precise coverage (call
 * counts) is reset just before one request and read just after it, after a few warm-up requests,
 * so what runs once at start does not count. `--json` prints `{ route: files[] }` for tests.
 */

import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInProcessCaller } from '../app/in-process.ts';
import { startScratchApp } from '../bench/bench-setup.ts';

const root = path.resolve(import.meta.dirname, '..');
/** The service's own code: what a request can cross (tests, scripts and packages are not it). */
const SERVICE_FOLDERS = ['app/', 'adapters/', 'domain/', 'routers/', 'rest/', 'entities/'];

const { app, close } = await startScratchApp({ NODE_ENV: 'test' });
try {
  const email = `path-${Date.now()}@example.test`;
  const password = 'request-path-password';
  await createInProcessCaller(app.database.orm, app.services).admin.createUser({
    organization: `Request path ${Date.now()}`,
    email,
    password,
  });
  let cookie = '';
  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${app.url}${route}`, {
      method,
      headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const setCookie = response.headers.getSetCookie()[0];
    if (setCookie) cookie = setCookie.split(';')[0]!;
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  await call('POST', '/api/auth/login', { email, password });
  const deck = await call('POST', '/api/decks', { name: 'Request path' });
  const slideIds: string[] = [];
  for (const title of ['One', 'Two', 'Three']) {
    slideIds.push((await call('POST', `/api/decks/${deck.id}/slides`, { title })).id);
  }

  const routes: Record<string, () => Promise<unknown>> = {
    // First: it names every slide of the deck, before the others add theirs.
    'PUT /api/decks/{deckId}/slides/reorder': () =>
      call('PUT', `/api/decks/${deck.id}/slides/reorder`, { slideIds: slideIds.reverse() }),
    'POST /api/decks/{deckId}/slides': () => call('POST', `/api/decks/${deck.id}/slides`, { title: 'REST' }),
    'POST /trpc/slides.createSlide': () =>
      call('POST', '/trpc/slides.createSlide', { deckId: deck.id, title: 'tRPC' }),
    'GET /api/auth/me': () => call('GET', '/api/auth/me'),
  };
  const paths: Record<string, string[]> = {};
  for (const [route, request] of Object.entries(routes)) {
    for (let warm = 0; warm < 5; warm++) await request();
    paths[route] = await filesCrossedBy(request);
  }
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(paths));
  } else {
    for (const [route, files] of Object.entries(paths)) {
      console.log(`${route}: ${files.length} files`);
      for (const file of files) console.log(`  ${file}`);
    }
  }
} finally {
  await close();
}

/** The service's files whose functions ran while `request` ran, in this process. */
async function filesCrossedBy(request: () => Promise<unknown>): Promise<string[]> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    await session.post('Profiler.takePreciseCoverage'); // resets the counts
    await request();
    const { result } = await session.post('Profiler.takePreciseCoverage');
    await session.post('Profiler.stopPreciseCoverage');
    const files = new Set<string>();
    for (const script of result) {
      if (!script.url.startsWith('file:')) continue;
      const file = path.relative(root, fileURLToPath(script.url)).split(path.sep).join('/');
      if (!SERVICE_FOLDERS.some((folder) => file.startsWith(folder))) continue;
      if (script.functions.some((fn) => fn.ranges.some((range) => range.count > 0))) files.add(file);
    }
    return [...files].sort();
  } finally {
    session.disconnect();
  }
}
