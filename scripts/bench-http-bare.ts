/**
 * The yardstick of `npm run bench:http`: a bare Koa 3 + pg handler doing the naive version of
 * `GET /api/auth/me` — the session row by the cookie token's hash, then user ⨝ organization,
 * as JSON. No logging, no validation, no error shaping: what the service is compared with.
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

app.use(async (ctx) => {
  if (ctx.path !== '/api/auth/me') {
    ctx.status = 404;
    return;
  }
  const token = ctx.cookies.get('session', { signed: false });
  if (!token) {
    ctx.status = 401;
    return;
  }
  const hash = createHash('sha256').update(token).digest('hex');
  const session = await pool.query<{ user_id: string }>(
    'select user_id from session where token_hash = $1 and expires_at > now()',
    [hash],
  );
  if (session.rows.length === 0) {
    ctx.status = 401;
    return;
  }
  const users = await pool.query<{
    id: string;
    email: string;
    name: string;
    role: string;
    organization_id: string;
    organization_name: string;
  }>(
    `select u.id, u.email, u.name, u.role, o.id as organization_id, o.name as organization_name
       from app_user u join organization o on o.id = u.organization_id where u.id = $1`,
    [session.rows[0]!.user_id],
  );
  const user = users.rows[0]!;
  ctx.body = {
    user: { id: user.id, email: user.email, name: user.name, role: user.role },
    organization: { id: user.organization_id, name: user.organization_name },
  };
});

const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => {
  process.stdout.write('listening\n');
});
process.once('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
