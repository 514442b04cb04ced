import { Migration } from '@mikro-orm/migrations';

/**
 * Sessions keyed by the SHA-256 of a 256-bit cookie token instead of koa-session's signed
 * key. Existing sessions cannot be carried over (their keys were stored in clear and are
 * shorter than 256 bits): everyone signs in again.
 */
export class Migration20261122081920_sessions_hashed extends Migration {
  override name = 'Migration20261122081920_sessions_hashed';

  override up(): void | Promise<void> {
    this.addSql(`delete from "session";`);
    this.addSql(`alter table "session" drop constraint "session_pkey";`);
    this.addSql(`alter table "session" drop column "data";`);
    this.addSql(`alter table "session" add "renewed_at" timestamptz not null;`);
    this.addSql(`alter table "session" rename column "id" to "token_hash";`);
    this.addSql(`alter table "session" add primary key ("token_hash");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`delete from "session";`);
    this.addSql(`alter table "session" drop constraint "session_pkey";`);
    this.addSql(`alter table "session" drop column "renewed_at";`);
    this.addSql(`alter table "session" add "data" jsonb not null;`);
    this.addSql(`alter table "session" rename column "token_hash" to "id";`);
    this.addSql(`alter table "session" add primary key ("id");`);
  }
}
