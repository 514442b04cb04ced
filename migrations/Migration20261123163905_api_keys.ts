import { Migration } from '@mikro-orm/migrations';

export class Migration20261123163905_api_keys extends Migration {
  override name = 'Migration20261123163905_api_keys';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "api_key" ("id" uuid not null, "organization_id" uuid not null, "name" varchar(200) not null, "access" text not null, "secret_hash" varchar(64) not null, "prefix" varchar(8) not null, "created_at" timestamptz not null, "created_by_id" uuid null, "expires_at" timestamptz null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`alter table "api_key" add constraint "api_key_secret_hash_unique" unique ("secret_hash");`);
    this.addSql(
      `create index "api_key_organization_id_created_at_index" on "api_key" ("organization_id", "created_at");`,
    );

    this.addSql(
      `alter table "api_key" add constraint "api_key_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "api_key" add constraint "api_key_created_by_id_foreign" foreign key ("created_by_id") references "app_user" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "api_key" add constraint "api_key_access_check" check ("access" in ('read', 'write', 'admin'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "api_key" cascade;`);
  }
}
