/**
 * The yardstick of `npm run bench:http`: a bare Koa 3 + pg handler doing the naive version of
 * the measured routes — the session row by the cookie token's hash, then user ⨝ organization,
 * then the route's own query, as JSON. No logging, no validation, no error shaping, no rate
 * limits: what the service is compared with.
 * - `GET /api/auth/me`
 * - `GET /api/decks/{id}/slides`: the deck's slides (the deck in the caller's organization)
 * - `GET /api/notifications/events`: the first page, newest first, and the exact total (50 events:
 *   the interface's default page, which the service answers)
 * - `POST /api/decks/{id}/slides` and `DELETE /api/slides/{id}`: in a transaction, the deck row
 *   locked, the slide written, the slides after it moved, and the event recorded
 * Run by bench-http.ts as a child process with DATABASE_URL and PORT.
 */
import { createHash, randomUUID } from 'node:crypto';
import Koa from 'koa';
import pg from 'pg';

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_MAX ?? 10),
});
const app = new Koa();
// wrk closes its connections mid-request when a run ends: not worth a stack trace each.
app.silent = true;

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
/** The event log's first page: the interface's default size, as the service answers `GET /api/notifications/events`. */
const PAGE = 50;

const routes: [string, RegExp, (ctx: Koa.Context, user: Caller, match: RegExpExecArray) => Promise<void>][] =
  [
    [
      'GET',
      /^\/api\/auth\/me$/,
      async (ctx, user) => {
        ctx.body = {
          user: { id: user.id, email: user.email, name: user.name, role: user.role },
          organization: { id: user.organization_id, name: user.organization_name },
        };
      },
    ],
    [
      'GET',
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
        ctx.body = { slides: slides.rows.map(slideOutput) };
      },
    ],
    [
      'GET',
      /^\/api\/notifications\/events$/,
      async (ctx, user) => {
        const [events, total] = await Promise.all([
          pool.query(
            `select * from event where organization_id = $1 order by occurred_at desc, id desc limit ${PAGE}`,
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
          pagination: { total: total.rows[0].total, limit: PAGE, offset: 0 },
        };
      },
    ],
    [
      'POST',
      /^\/api\/decks\/([0-9a-f-]{36})\/slides$/,
      async (ctx, user, match) => {
        const body = JSON.parse(await text(ctx.req)) as { title?: string; bullets?: string[] };
        const slide = await transaction(async (client) => {
          const deck = await client.query(
            'select id from deck where id = $1 and organization_id = $2 for update',
            [match[1], user.organization_id],
          );
          if (deck.rows.length === 0) return undefined;
          const position = await client.query(
            `select count(*)::int as count,
                  max(substring(slide_id from 7)::bigint) filter (where slide_id ~ '^slide-[0-9]+$') as n
             from slide where deck_id = $1`,
            [match[1]],
          );
          const { count, n } = position.rows[0];
          const inserted = await client.query(
            `insert into slide (id, deck_id, slide_id, title, bullets, order_index, slide_type, created_at, updated_at)
           values ($1, $2, $3, $4, $5, $6, 'standard', now(), now()) returning *`,
            [
              randomUUID(),
              match[1],
              `slide-${Number(n ?? 0) + 1}`,
              body.title ?? null,
              JSON.stringify(body.bullets ?? []),
              count,
            ],
          );
          const output = slideOutput(inserted.rows[0]);
          await recordEvent(client, user, 'slide.created', output);
          return output;
        });
        if (!slide) {
          ctx.status = 404;
          return;
        }
        ctx.status = 201;
        ctx.body = slide;
      },
    ],
    [
      'DELETE',
      /^\/api\/slides\/([0-9a-f-]{36})$/,
      async (ctx, user, match) => {
        const deleted = await transaction(async (client) => {
          const found = await client.query(
            `select d.id from slide s join deck d on d.id = s.deck_id
            where s.id = $1 and d.organization_id = $2 for update of d`,
            [match[1], user.organization_id],
          );
          if (found.rows.length === 0) return false;
          const removed = await client.query('delete from slide where id = $1 returning *', [match[1]]);
          if (removed.rows.length === 0) return false;
          const slide = removed.rows[0];
          await client.query(
            'update slide set order_index = order_index - 1 where deck_id = $1 and order_index > $2',
            [slide.deck_id, slide.order_index],
          );
          await recordEvent(client, user, 'slide.deleted', slideOutput(slide));
          return true;
        });
        ctx.status = deleted ? 200 : 404;
        if (deleted) ctx.body = { success: true };
      },
    ],
  ];

function slideOutput(s: Record<string, any>) {
  return {
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
  };
}

async function recordEvent(
  client: pg.PoolClient,
  user: Caller,
  type: string,
  slide: { id: string; deckId: string },
) {
  await client.query(
    `insert into event (id, organization_id, event_type, aggregate_type, aggregate_id, deck_id, occurred_at, payload)
     values ($1, $2, $3, 'slide', $4, $5, now(), $6)`,
    [
      randomUUID(),
      user.organization_id,
      type,
      slide.id,
      slide.deckId,
      JSON.stringify({ ...slide, actor: { type: 'user', id: user.id } }),
    ],
  );
}

async function transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
}

async function text(request: NodeJS.ReadableStream): Promise<string> {
  let body = '';
  for await (const chunk of request) body += chunk;
  return body;
}

app.use(async (ctx) => {
  for (const [method, pattern, handle] of routes) {
    const match = ctx.method === method ? pattern.exec(ctx.path) : null;
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
