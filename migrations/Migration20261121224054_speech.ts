import { Migration } from '@mikro-orm/migrations';

export class Migration20261121224054_speech extends Migration {
  override name = 'Migration20261121224054_speech';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "generation_job" ("id" uuid not null, "deck_id" uuid not null, "status" text not null default 'pending', "current_slide" int not null default 0, "total_slides" int not null default 0, "error" text null, "locked_until" timestamptz null, "started_at" timestamptz null, "completed_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "generation_job_deck_id_created_at_index" on "generation_job" ("deck_id", "created_at");`,
    );
    this.addSql(
      `create index "generation_job_status_created_at_index" on "generation_job" ("status", "created_at");`,
    );
    this.addSql(
      `create unique index "generation_job_one_active_per_deck" on "generation_job" ("deck_id") where "status" in ('pending', 'processing');`,
    );

    this.addSql(
      `create table "faq" ("id" uuid not null, "deck_id" uuid not null, "user_question" text not null, "canned_answer" text not null, "related_slide_id" uuid null, "audio_key" varchar(1024) null, "audio_status" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "faq_related_slide_id_index" on "faq" ("related_slide_id");`);
    this.addSql(`create index "faq_deck_id_created_at_index" on "faq" ("deck_id", "created_at");`);

    this.addSql(
      `alter table "generation_job" add constraint "generation_job_deck_id_foreign" foreign key ("deck_id") references "deck" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "generation_job" add constraint "generation_job_status_check" check ("status" in ('pending', 'processing', 'completed', 'failed'));`,
    );

    this.addSql(
      `alter table "faq" add constraint "faq_deck_id_foreign" foreign key ("deck_id") references "deck" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "faq" add constraint "faq_related_slide_id_foreign" foreign key ("related_slide_id") references "slide" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "faq" add constraint "faq_audio_status_check" check ("audio_status" in ('ready', 'failed'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "generation_job" cascade;`);
    this.addSql(`drop table if exists "faq" cascade;`);
  }
}
