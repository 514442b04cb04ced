import { Migration } from '@mikro-orm/migrations';

/**
 * Exact totals of the event log without counting it: `event_count` holds, per organization,
 * event type and aggregate type, how many events there are, kept by statement-level triggers
 * on `event` in the same transaction as the insert or delete (so every path that writes
 * events, bulk SQL included, keeps it exact, and a rollback takes its counts back).
 *
 * Contention: one counter row per key would serialise every writing transaction of an
 * organization until it commits. Instead a key has up to 16 `stripe` rows, and a writing
 * transaction claims one stripe of its organization for its duration with a transaction-level
 * advisory try-lock (starting from its connection's stripe, moving on when one is taken); no
 * two open transactions ever update the same counter row, so writers do not wait on each
 * other. Only with 16 writers of one organization open at once does the 17th wait, on one
 * lock, holding no other stripe of that organization (it would have got its own back), so no
 * deadlock among counters. Readers sum the stripes.
 *
 * `event_count_by_hour` counts the same events per organization and hour (UTC): a time range's
 * total is the sum of its whole hours plus the events of its two partial hours, counted.
 *
 * The triggers are declared in entities/Event.ts too (so that a generated migration keeps them).
 * The triggers come before the backfill: creating them locks `event` against writes until
 * this migration commits, so no event is counted twice or missed.
 */
export class Migration20261122133854_event_counts extends Migration {
  override name = 'Migration20261122133854_event_counts';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "event_count" ("organization_id" uuid not null, "event_type" varchar(100) not null, "aggregate_type" varchar(100) not null, "stripe" smallint not null, "count" bigint not null, primary key ("organization_id", "event_type", "aggregate_type", "stripe"));`,
    );
    this.addSql(
      `alter table "event_count" add constraint "event_count_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );
    this.addSql(
      `create table "event_count_by_hour" ("organization_id" uuid not null, "hour" timestamptz not null, "stripe" smallint not null, "count" bigint not null, primary key ("organization_id", "hour", "stripe"));`,
    );
    this.addSql(
      `alter table "event_count_by_hour" add constraint "event_count_by_hour_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );

    this.addSql(`
      create function "event_count_apply"() returns trigger language plpgsql as $$
      declare
        delta int := case when TG_OP = 'INSERT' then 1 else -1 end;
        home smallint := pg_backend_pid() % 16;
        org uuid;
        slot smallint;
        claimed boolean;
      begin
        for org in select distinct organization_id from changed order by 1 loop
          -- Deleted with their organization (cascade): its counters go the same way.
          continue when TG_OP = 'DELETE' and not exists (select 1 from organization where id = org);
          -- Claim a stripe of org for this transaction: this connection's first, then the next
          -- free one. Re-entrant: a stripe this transaction already holds is claimed again.
          claimed := false;
          for i in 0..15 loop
            slot := (home + i) % 16;
            claimed := pg_try_advisory_xact_lock(hashtextextended('event_count:' || org || ':' || slot, 0));
            exit when claimed;
          end loop;
          if not claimed then
            slot := home;
            perform pg_advisory_xact_lock(hashtextextended('event_count:' || org || ':' || slot, 0));
          end if;
          insert into event_count as c (organization_id, event_type, aggregate_type, stripe, count)
          select org, event_type, aggregate_type, slot, delta * count(*)
            from changed where organization_id = org
           group by event_type, aggregate_type
          on conflict (organization_id, event_type, aggregate_type, stripe)
            do update set count = c.count + excluded.count;
          insert into event_count_by_hour as h (organization_id, hour, stripe, count)
          select org, date_trunc('hour', occurred_at, 'UTC'), slot, delta * count(*)
            from changed where organization_id = org
           group by 2
          on conflict (organization_id, hour, stripe) do update set count = h.count + excluded.count;
        end loop;
        return null;
      end $$;`);
    this.addSql(`create trigger "event_count_insert" after insert on "event" referencing new table as changed
      for each statement execute function event_count_apply();`);
    this.addSql(`create trigger "event_count_delete" after delete on "event" referencing old table as changed
      for each statement execute function event_count_apply();`);

    this.addSql(`
      create function "event_count_clear"() returns trigger language plpgsql as $$
      begin
        delete from event_count;
        delete from event_count_by_hour;
        return null;
      end $$;`);
    this.addSql(`create trigger "event_count_truncate" after truncate on "event"
      for each statement execute function event_count_clear();`);

    // What is counted never changes (an update would have to move counts between keys).
    this.addSql(`
      create function "event_counted_keys_fixed"() returns trigger language plpgsql as $$
      begin
        raise exception 'an event''s organization, event type and aggregate type never change (event_count counts by them)';
      end $$;`);
    this.addSql(`create trigger "event_counted_keys_fixed"
      before update of organization_id, event_type, aggregate_type on "event" for each row
      when (old.organization_id is distinct from new.organization_id or old.event_type is distinct from new.event_type
            or old.aggregate_type is distinct from new.aggregate_type)
      execute function event_counted_keys_fixed();`);

    this.addSql(`insert into "event_count" (organization_id, event_type, aggregate_type, stripe, count)
      select organization_id, event_type, aggregate_type, 0, count(*) from "event" group by 1, 2, 3;`);
    this.addSql(`insert into "event_count_by_hour" (organization_id, hour, stripe, count)
      select organization_id, date_trunc('hour', occurred_at, 'UTC'), 0, count(*) from "event" group by 1, 2;`);

    // They served only the totals the counters now give.
    this.addSql(`drop index "event_organization_id_aggregate_type_index";`);
    this.addSql(`drop index "event_organization_id_event_type_index";`);
    this.addSql(`drop index "event_organization_id_index";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger "event_counted_keys_fixed" on "event";`);
    this.addSql(`drop trigger "event_count_truncate" on "event";`);
    this.addSql(`drop trigger "event_count_delete" on "event";`);
    this.addSql(`drop trigger "event_count_insert" on "event";`);
    this.addSql(`drop function "event_counted_keys_fixed"();`);
    this.addSql(`drop function "event_count_clear"();`);
    this.addSql(`drop function "event_count_apply"();`);
    this.addSql(`drop table if exists "event_count_by_hour" cascade;`);
    this.addSql(`drop table if exists "event_count" cascade;`);

    this.addSql(
      `create index "event_organization_id_aggregate_type_index" on "event" ("organization_id", "aggregate_type");`,
    );
    this.addSql(
      `create index "event_organization_id_event_type_index" on "event" ("organization_id", "event_type");`,
    );
    this.addSql(`create index "event_organization_id_index" on "event" ("organization_id");`);
  }
}
