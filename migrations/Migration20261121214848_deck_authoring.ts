import { Migration } from '@mikro-orm/migrations';

export class Migration20261121214848_deck_authoring extends Migration {
  override name = 'Migration20261121214848_deck_authoring';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "deck_intro" ("deck_id" uuid not null, "title" varchar(200) null, "script" text not null, "voice_id" varchar(200) null, "audio_key" varchar(1024) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("deck_id"));`,
    );

    this.addSql(
      `create table "deck_branding" ("deck_id" uuid not null, "data" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("deck_id"));`,
    );

    this.addSql(
      `create table "action_config" ("id" uuid not null, "deck_id" uuid not null, "action_type" varchar(100) not null, "template_markdown" text not null, "disclosures_markdown" text null, "requirements_json" jsonb null, "rep_name" varchar(200) null, "status" text not null default 'draft', "published_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "action_config_deck_id_created_at_index" on "action_config" ("deck_id", "created_at");`,
    );

    this.addSql(
      `create table "slide" ("id" uuid not null, "deck_id" uuid not null, "slide_id" varchar(50) not null, "title" text null, "narration_script" text null, "bullets" jsonb not null, "slide_context" text null, "audio_url" varchar(1024) null, "hero_img" varchar(1024) null, "order_index" int not null, "slide_type" text not null default 'standard', "product_data" jsonb null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "slide" add constraint "slide_deck_id_slide_id_unique" unique ("deck_id", "slide_id");`,
    );
    this.addSql(
      `alter table "slide" add constraint "slide_deck_id_order_index_unique" unique ("deck_id", "order_index") deferrable initially deferred;`,
    );

    this.addSql(
      `alter table "deck_intro" add constraint "deck_intro_deck_id_foreign" foreign key ("deck_id") references "deck" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "deck_branding" add constraint "deck_branding_deck_id_foreign" foreign key ("deck_id") references "deck" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "action_config" add constraint "action_config_deck_id_foreign" foreign key ("deck_id") references "deck" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "action_config" add constraint "action_config_status_check" check ("status" in ('draft', 'published'));`,
    );

    this.addSql(
      `alter table "slide" add constraint "slide_deck_id_foreign" foreign key ("deck_id") references "deck" ("id") on delete cascade;`,
    );
    this.addSql(`alter table "slide" add constraint "slide_order_index_check" check (order_index >= 0);`);
    this.addSql(
      `alter table "slide" add constraint "slide_slide_type_check" check ("slide_type" in ('standard', 'product_pricing_v1'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "deck_intro" cascade;`);
    this.addSql(`drop table if exists "deck_branding" cascade;`);
    this.addSql(`drop table if exists "action_config" cascade;`);
    this.addSql(`drop table if exists "slide" cascade;`);
  }
}
