import { Migration } from '@mikro-orm/migrations';

export class Migration20261123180000_idempotency_keys extends Migration {
  override name = 'Migration20261123180000_idempotency_keys';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "idempotency_key" ("caller_key" varchar(200) not null, "key" varchar(255) not null, "method" varchar(10) not null, "path" text not null, "body_hash" varchar(64) not null, "state" text not null, "claim_token" uuid not null, "claimed_at" timestamptz not null, "response_status" int null, "response_body" text null, "response_headers" jsonb null, "created_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("caller_key", "key"));`,
    );
    this.addSql(
      `alter table "idempotency_key" add constraint "idempotency_key_state_check" check ("state" in ('running', 'completed'));`,
    );
    this.addSql(`create index "idempotency_key_expires_at_index" on "idempotency_key" ("expires_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "idempotency_key" cascade;`);
  }
}
