import { Migration } from '@mikro-orm/migrations';

export class Migration20261121220722_notifications extends Migration {
  override name = 'Migration20261121220722_notifications';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "notification_subscription" ("id" uuid not null, "organization_id" uuid not null, "name" varchar(200) not null, "event_type" varchar(120) not null, "channel" text not null, "channel_config" jsonb not null, "deck_id" uuid null, "secret" varchar(100) null, "is_active" boolean not null default true, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "notification_subscription_deck_id_index" on "notification_subscription" ("deck_id");`,
    );
    this.addSql(
      `create index "notification_subscription_organization_id_created_at_index" on "notification_subscription" ("organization_id", "created_at");`,
    );

    this.addSql(
      `create table "notification_delivery" ("id" uuid not null, "subscription_id" uuid not null, "event_id" uuid not null, "event_type" varchar(100) not null, "aggregate_key" varchar(320) not null, "event_occurred_at" timestamptz not null, "status" text not null default 'pending', "attempts" int not null default 0, "next_attempt_at" timestamptz not null, "locked_until" timestamptz null, "last_status_code" int null, "last_error" text null, "completed_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "notification_delivery_subscription_id_created_at_index" on "notification_delivery" ("subscription_id", "created_at");`,
    );
    this.addSql(
      `create index "notification_delivery_subscription_id_aggregate_ke_49a8c_index" on "notification_delivery" ("subscription_id", "aggregate_key", "event_occurred_at");`,
    );
    this.addSql(
      `create index "notification_delivery_status_next_attempt_at_index" on "notification_delivery" ("status", "next_attempt_at");`,
    );
    this.addSql(
      `alter table "notification_delivery" add constraint "notification_delivery_subscription_id_event_id_unique" unique ("subscription_id", "event_id");`,
    );

    this.addSql(
      `create table "delivery_attempt" ("id" uuid not null, "delivery_id" uuid not null, "attempt_number" int not null, "attempted_at" timestamptz not null, "status_code" int null, "duration_ms" int not null, "error" text null, primary key ("id"));`,
    );
    this.addSql(`create index "delivery_attempt_delivery_id_index" on "delivery_attempt" ("delivery_id");`);

    this.addSql(`alter table "event" add "dispatched_at" timestamptz null;`);
    // Events written before subscriptions existed have nobody to go to.
    this.addSql(`update "event" set "dispatched_at" = "occurred_at";`);
    this.addSql(
      `create index "event_organization_id_event_type_occurred_at_id_index" on "event" ("organization_id", "event_type", "occurred_at", "id");`,
    );
    this.addSql(
      `create index "event_organization_id_aggregate_type_occurred_at_id_index" on "event" ("organization_id", "aggregate_type", "occurred_at", "id");`,
    );
    this.addSql(
      `create index "event_organization_id_aggregate_id_occurred_at_id_index" on "event" ("organization_id", "aggregate_id", "occurred_at", "id");`,
    );
    this.addSql(`create index "event_organization_id_index" on "event" ("organization_id");`);
    this.addSql(
      `create index "event_organization_id_event_type_index" on "event" ("organization_id", "event_type");`,
    );
    this.addSql(
      `create index "event_organization_id_aggregate_type_index" on "event" ("organization_id", "aggregate_type");`,
    );
    this.addSql(
      `create index "event_undispatched_index" on "event" ("occurred_at", "id") where "dispatched_at" is null;`,
    );

    this.addSql(
      `alter table "notification_subscription" add constraint "notification_subscription_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "notification_subscription" add constraint "notification_subscription_deck_id_foreign" foreign key ("deck_id") references "deck" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "notification_subscription" add constraint "notification_subscription_channel_check" check ("channel" in ('webhook', 'email', 'console'));`,
    );

    this.addSql(
      `alter table "notification_delivery" add constraint "notification_delivery_subscription_id_foreign" foreign key ("subscription_id") references "notification_subscription" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "notification_delivery" add constraint "notification_delivery_event_id_foreign" foreign key ("event_id") references "event" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "notification_delivery" add constraint "notification_delivery_status_check" check ("status" in ('pending', 'succeeded', 'failed'));`,
    );

    this.addSql(
      `alter table "delivery_attempt" add constraint "delivery_attempt_delivery_id_foreign" foreign key ("delivery_id") references "notification_delivery" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "notification_delivery" drop constraint "notification_delivery_subscription_id_foreign";`,
    );
    this.addSql(`alter table "delivery_attempt" drop constraint "delivery_attempt_delivery_id_foreign";`);

    this.addSql(`drop table if exists "notification_subscription" cascade;`);
    this.addSql(`drop table if exists "notification_delivery" cascade;`);
    this.addSql(`drop table if exists "delivery_attempt" cascade;`);

    this.addSql(`drop index "event_organization_id_event_type_occurred_at_id_index";`);
    this.addSql(`drop index "event_organization_id_aggregate_type_occurred_at_id_index";`);
    this.addSql(`drop index "event_organization_id_aggregate_id_occurred_at_id_index";`);
    this.addSql(`drop index "event_organization_id_index";`);
    this.addSql(`drop index "event_organization_id_event_type_index";`);
    this.addSql(`drop index "event_organization_id_aggregate_type_index";`);
    this.addSql(`drop index "event_undispatched_index";`);
    this.addSql(`alter table "event" drop column "dispatched_at";`);
  }
}
