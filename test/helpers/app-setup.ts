import pg from 'pg';
import { createInProcessCaller } from '../../app/in-process.ts';
import { findAuth } from '../../domain/auth/callers.ts';
import { startTestApp, type TestApp } from './test-app.ts';

/** A client signed in as the owner of a new organization (what `signedInClient()` resolves to). */
export type SignedInClient = Awaited<ReturnType<TestApp['signedInClient']>>;

/** The real app (with `env`) and a client signed in to a new organization of it: most files' setup. */
export async function startSignedIn(env: Record<string, string> = {}) {
  const t = await startTestApp(env);
  return { t, user: await t.signedInClient() };
}

/** As `startSignedIn`, with a deck named `name` the user has created. */
export async function startWithDeck(name: string, env: Record<string, string> = {}) {
  const { t, user } = await startSignedIn(env);
  const deckId: string = (await user.post('/api/decks', { name })).body.id;
  return { t, user, deckId };
}

/** The user's tRPC caller in this process: the procedures without the HTTP in front of them. */
export async function inProcessCallerOf(t: TestApp, userId: string) {
  const orm = t.app.database.orm;
  return createInProcessCaller(orm, t.app.services, await findAuth(orm.em.fork(), userId));
}

/** How many events the organization's log holds. */
export async function eventCountOf(t: TestApp, organizationId: string) {
  const [row] = await t.app.database.orm.em
    .getConnection()
    .execute<{ n: number }[]>('select count(*)::int as n from event where organization_id = ?', [
      organizationId,
    ]);
  return row!.n;
}

/** The real app (with `env`) and a client of its database, connected; `close()` ends both. */
export async function startWithDatabaseClient(env: Record<string, string> = {}) {
  const t = await startTestApp(env);
  const db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  const close = async () => {
    await db.end();
    await t.close();
  };
  return { t, db, close };
}
