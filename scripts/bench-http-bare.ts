/**
 * The yardstick of `npm run bench:http`: a bare Koa 3 + pg handler doing the naive version of
 * the measured routes — the session row by the cookie token's hash, then user ⨝ organization,
 * then the route's own query, as JSON. No logging, no validation, no error shaping, no rate
 * limits: what the service is compared with.
 * - `GET /api/auth/me`
 * - `GET /api/decks/{id}/slides`: the deck's slides (the deck in the caller's organization)
 * - `GET /api/notifications/events`: the first page of 20, newest first, and the exact total
 * Run by bench-http.ts as a child process with DATABASE_URL and PORT.
 */
import { createHash } from 'node:crypto';
import Koa from 'koa';
import pg from 'pg';

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_MAX ?? 10),
});
const app = new Koa();

interface Caller {
  id: string;
  email: string;
  name: string;
  role: string;
  organization_id: string;
  organization_name: string;
}

async function caller(ctx: Koa.Context): Promise<Caller | undefined> {
  const token = ctx.cookies.get('session', { signed: false });
  if (!token) return undefined;
  const hash = createHash('sha256').update(token).digest('hex');
  const session = await pool.query<{ user_id: string }>(
    'select user_id from session where token_hash = $1 and expires_at > now()',
    [hash],
  );
  if (session.rows.length === 0) return undefined;
  const users = await pool.query<Caller>(
    `select u.id, u.email, u.name, u.role, o.id as organization_id, o.name as organization_name
       from app_user u join organization o on o.id = u.organization_id where u.id = $1`,
    [session.rows[0]!.user_id],
  );
  return users.rows[0];
}

const timestamp = (date: Date) => date.toISOString();

const routes: [RegExp, (ctx: Koa.Context, user: Caller, match: RegExpExecArray) => Promise<void>][] = [
  [
    /^\/api\/auth\/me$/,
    async (ctx, user) => {
      ctx.body = {
        user: { id: user.id, email: user.email, name: user.name, role: user.role },
        organization: { id: user.organization_id, name: user.organization_name },
      };
    },
  ],
  [
    /^\/api\/decks\/([0-9a-f-]{36})\/slides$/,
    async (ctx, user, match) => {
      const deck = await pool.query('select id from deck where id = $1 and organization_id = $2', [
        match[1],
        user.organization_id,
      ]);
      if (deck.rows.length === 0) {
        ctx.status = 404;
        return;
      }
      const slides = await pool.query('select * from slide where deck_id = $1 order by order_index', [
        match[1],
      ]);
      ctx.body = {
        slides: slides.rows.map((s) => ({
          id: s.id,
          deckId: s.deck_id,
          slideId: s.slide_id,
          title: s.title,
          narrationScript: s.narration_script,
          bullets: s.bullets,
          slideContext: s.slide_context,
          audioUrl: s.audio_url,
          heroImg: s.hero_img,
          orderIndex: s.order_index,
          slideType: s.slide_type,
          productData: s.product_data,
          createdAt: timestamp(s.created_at),
          updatedAt: timestamp(s.updated_at),
        })),
      };
    },
  ],
  [
    /^\/api\/notifications\/events$/,
    async (ctx, user) => {
      const [events, total] = await Promise.all([
        pool.query(
          `select * from event where organization_id = $1 order by occurred_at desc, id desc limit 20`,
          [user.organization_id],
        ),
        pool.query('select count(*)::int as total from event where organization_id = $1', [
          user.organization_id,
        ]),
      ]);
      ctx.body = {
        events: events.rows.map((e) => ({
          id: e.id,
          eventType: e.event_type,
          aggregateType: e.aggregate_type,
          aggregateId: e.aggregate_id,
          occurredAt: timestamp(e.occurred_at),
          payload: e.payload,
        })),
        pagination: { total: total.rows[0].total, limit: 20, offset: 0 },
      };
    },
  ],
];

app.use(async (ctx) => {
  for (const [pattern, handle] of routes) {
    const match = pattern.exec(ctx.path);
    if (!match) continue;
    const user = await caller(ctx);
    if (!user) {
      ctx.status = 401;
      return;
    }
    await handle(ctx, user, match);
    return;
  }
  ctx.status = 404;
});

const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => {
  process.stdout.write('listening\n');
});
process.once('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
