import { Migration } from '@mikro-orm/migrations';

/**
 * Deck exports (issue 39, api.md "Deck export"): one row per export, worked like narration jobs
 * (claimed `for update skip locked`, leased, fenced by `attempt`), with its file's place in the
 * object store; every change a caller can see (not a lease renewal) notifies the instances
 * following it (`exports.onProgress`), its payload the export's id. The deck's deletion leaves the row to the retention sweep (its files
 * must be deleted too), hence `on delete set null`.
 */
export class Migration20261129011934_export_jobs extends Migration {
  override name = 'Migration20261129011934_export_jobs';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "export_job" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "organization_id" uuid not null, "deck_id" uuid null, "format" text not null, "include_faqs" boolean not null default true, "captions" boolean not null default true, "status" text not null default 'pending', "progress_done" int not null default 0, "progress_total" int not null default 0, "warnings" jsonb not null, "error" text null, "file_key" varchar(1024) null, "file_size" bigint null, "file_sha256" varchar(64) null, "file_content_type" varchar(100) null, "file_name" varchar(255) null, "captions_key" varchar(1024) null, "captions_size" bigint null, "captions_sha256" varchar(64) null, "attempt" int not null default 0, "locked_until" timestamptz null, "started_at" timestamptz null, "completed_at" timestamptz null, "expires_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "export_job_organization_id_index" on "export_job" ("organization_id");`);
    this.addSql(
      `create index "export_job_deck_id_created_at_id_index" on "export_job" ("deck_id", "created_at", "id");`,
    );
    this.addSql(
      `create index "export_job_status_created_at_index" on "export_job" ("status", "created_at");`,
    );
    this.addSql(`create index "export_job_expires_at_index" on "export_job" ("expires_at");`);

    this.addSql(
      `alter table "export_job" add constraint "export_job_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "export_job" add constraint "export_job_deck_id_foreign" foreign key ("deck_id") references "deck" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "export_job" add constraint "export_job_format_check" check ("format" in ('pptx', 'pdf', 'mp4'));`,
    );
    this.addSql(
      `alter table "export_job" add constraint "export_job_status_check" check ("status" in ('pending', 'processing', 'completed', 'failed', 'canceled'));`,
    );
    this.addSql(
      `create or replace function "export_job_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(`create trigger "updated_at_now" BEFORE UPDATE on "export_job" for each ROW
  when ((new.updated_at IS DISTINCT FROM now())) execute function "export_job_updated_at_now_fn"();`);
    this.addSql(`create or replace function "export_job_notify"() returns trigger as $$
  begin perform pg_notify('export_job', new.id::text); return null; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "export_job_notify_insert" after insert on "export_job" for each row execute function "export_job_notify"();`,
    );
    // Not a lease renewal: only a change the export's answer shows.
    this.addSql(
      `create trigger "export_job_notify_update" after update on "export_job" for each row when ((old.status, old.progress_done, old.progress_total, old.warnings, old.error, old.file_key, old.captions_key, old.expires_at) is distinct from (new.status, new.progress_done, new.progress_total, new.warnings, new.error, new.file_key, new.captions_key, new.expires_at)) execute function "export_job_notify"();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "updated_at_now" on "export_job";`);
    this.addSql(`drop function if exists "export_job_updated_at_now_fn"();`);
    this.addSql(`drop trigger if exists "export_job_notify_update" on "export_job";`);
    this.addSql(`drop trigger if exists "export_job_notify_insert" on "export_job";`);
    this.addSql(`drop function if exists "export_job_notify"();`);
    this.addSql(`drop table if exists "export_job" cascade;`);
  }
}
