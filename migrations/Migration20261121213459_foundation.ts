import { Migration } from '@mikro-orm/migrations';

export class Migration20261121213459_foundation extends Migration {
  override name = 'Migration20261121213459_foundation';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "login_throttle" ("key" varchar(400) not null, "failures" int not null, "window_started_at" timestamptz not null, primary key ("key"));`,
    );

    this.addSql(
      `create table "organization" ("id" uuid not null, "name" varchar(200) not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "organization" add constraint "organization_name_unique" unique ("name");`);

    this.addSql(
      `create table "event" ("id" uuid not null, "organization_id" uuid not null, "event_type" varchar(100) not null, "aggregate_type" varchar(100) not null, "aggregate_id" varchar(200) not null, "deck_id" uuid null, "occurred_at" timestamptz not null, "payload" jsonb not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "event_organization_id_occurred_at_id_index" on "event" ("organization_id", "occurred_at", "id");`,
    );

    this.addSql(
      `create table "deck" ("id" uuid not null, "organization_id" uuid not null, "name" varchar(200) not null, "voice_id" varchar(200) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "deck_organization_id_created_at_index" on "deck" ("organization_id", "created_at");`,
    );

    this.addSql(
      `create table "app_user" ("id" uuid not null, "organization_id" uuid not null, "email" varchar(320) not null, "name" varchar(200) not null, "role" text not null default 'member', "password_hash" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "app_user_organization_id_index" on "app_user" ("organization_id");`);
    this.addSql(`alter table "app_user" add constraint "app_user_email_unique" unique ("email");`);

    this.addSql(
      `create table "session" ("id" varchar(64) not null, "user_id" uuid not null, "data" jsonb not null, "expires_at" timestamptz not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "session_user_id_index" on "session" ("user_id");`);
    this.addSql(`create index "session_expires_at_index" on "session" ("expires_at");`);

    this.addSql(
      `alter table "event" add constraint "event_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "deck" add constraint "deck_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "app_user" add constraint "app_user_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "app_user" add constraint "app_user_role_check" check ("role" in ('owner', 'admin', 'member'));`,
    );

    this.addSql(
      `alter table "session" add constraint "session_user_id_foreign" foreign key ("user_id") references "app_user" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "event" drop constraint "event_organization_id_foreign";`);
    this.addSql(`alter table "deck" drop constraint "deck_organization_id_foreign";`);
    this.addSql(`alter table "app_user" drop constraint "app_user_organization_id_foreign";`);
    this.addSql(`alter table "session" drop constraint "session_user_id_foreign";`);

    this.addSql(`drop table if exists "login_throttle" cascade;`);
    this.addSql(`drop table if exists "organization" cascade;`);
    this.addSql(`drop table if exists "event" cascade;`);
    this.addSql(`drop table if exists "deck" cascade;`);
    this.addSql(`drop table if exists "app_user" cascade;`);
    this.addSql(`drop table if exists "session" cascade;`);
  }
}
