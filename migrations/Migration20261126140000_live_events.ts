import { Migration } from '@mikro-orm/migrations';

/**
 * The live event stream (docs/decisions/049-live-event-order.md): each event's writing transaction
 * (`tx_id`, xid8) and its place in it (`seq`), the order the stream follows, read up to the oldest
 * transaction still running so that no commit is overtaken; a notification on every commit that
 * wrote events (its payload: the transaction) and on every change of a generation job (its deck).
 */
export class Migration20261126140000_live_events extends Migration {
  override name = 'Migration20261126140000_live_events';

  override up(): void | Promise<void> {
    this.addSql(`alter table "event" add column "tx_id" xid8 not null default pg_current_xact_id();`);
    this.addSql(`alter table "event" add column "seq" bigserial;`);
    this.addSql(`create index "event_stream_index" on "event" ("tx_id", "seq");`);
    this.addSql(
      `create index "event_organization_stream_index" on "event" ("organization_id", "tx_id", "seq");`,
    );
    this.addSql(`create or replace function "event_log_notify"() returns trigger as $$
  begin perform pg_notify('event_log', pg_current_xact_id()::text); return null; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "event_log_notify" after insert on "event" for each statement execute function "event_log_notify"();`,
    );
    this.addSql(`create or replace function "generation_job_notify"() returns trigger as $$
  begin perform pg_notify('generation_job', new.deck_id::text); return null; end; $$ language plpgsql;`);
    this.addSql(
      `create trigger "generation_job_notify" after insert or update on "generation_job" for each row execute function "generation_job_notify"();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "generation_job_notify" on "generation_job";`);
    this.addSql(`drop function if exists "generation_job_notify"();`);
    this.addSql(`drop trigger if exists "event_log_notify" on "event";`);
    this.addSql(`drop function if exists "event_log_notify"();`);
    this.addSql(`drop index if exists "event_organization_stream_index";`);
    this.addSql(`drop index if exists "event_stream_index";`);
    this.addSql(`alter table "event" drop column "seq", drop column "tx_id";`);
  }
}
