import { Migration } from '@mikro-orm/migrations';

/**
 * Timestamps in one place, the database (docs/decisions/044-timestamps-in-the-database.md): `created_at`
 * and `updated_at` default to `now()`, and a trigger moves `updated_at` on every UPDATE, so raw
 * SQL and entity writes agree. Generated from `UPDATED_AT_TRIGGER` in entities/base.ts.
 */
export class Migration20261125035940_timestamps_in_database extends Migration {
  override name = 'Migration20261125035940_timestamps_in_database';

  override up(): void | Promise<void> {
    this.addSql(`alter table "kb_document" alter column "created_at" set default now();`);
    this.addSql(`alter table "kb_document" alter column "updated_at" set default now();`);
    this.addSql(
      `create or replace function "kb_document_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "kb_document" for each ROW execute function "kb_document_updated_at_now_fn"();`,
    );

    this.addSql(`alter table "deck" alter column "created_at" set default now();`);
    this.addSql(`alter table "deck" alter column "updated_at" set default now();`);
    this.addSql(
      `create or replace function "deck_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "deck" for each ROW execute function "deck_updated_at_now_fn"();`,
    );

    this.addSql(`alter table "notification_subscription" alter column "created_at" set default now();`);
    this.addSql(`alter table "notification_subscription" alter column "updated_at" set default now();`);
    this.addSql(
      `create or replace function "notification_subscription_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "notification_subscription" for each ROW execute function "notification_subscription_updated_at_now_fn"();`,
    );

    this.addSql(`alter table "notification_delivery" alter column "created_at" set default now();`);
    this.addSql(`alter table "notification_delivery" alter column "updated_at" set default now();`);
    this.addSql(
      `create or replace function "notification_delivery_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "notification_delivery" for each ROW execute function "notification_delivery_updated_at_now_fn"();`,
    );

    this.addSql(`alter table "generation_job" alter column "created_at" set default now();`);
    this.addSql(`alter table "generation_job" alter column "updated_at" set default now();`);
    this.addSql(
      `create or replace function "generation_job_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "generation_job" for each ROW execute function "generation_job_updated_at_now_fn"();`,
    );

    this.addSql(`alter table "deck_intro" alter column "created_at" set default now();`);
    this.addSql(`alter table "deck_intro" alter column "updated_at" set default now();`);
    this.addSql(
      `create or replace function "deck_intro_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "deck_intro" for each ROW execute function "deck_intro_updated_at_now_fn"();`,
    );

    this.addSql(`alter table "deck_branding" alter column "created_at" set default now();`);
    this.addSql(`alter table "deck_branding" alter column "updated_at" set default now();`);
    this.addSql(
      `create or replace function "deck_branding_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "deck_branding" for each ROW execute function "deck_branding_updated_at_now_fn"();`,
    );

    this.addSql(`alter table "action_config" alter column "created_at" set default now();`);
    this.addSql(`alter table "action_config" alter column "updated_at" set default now();`);
    this.addSql(
      `create or replace function "action_config_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "action_config" for each ROW execute function "action_config_updated_at_now_fn"();`,
    );

    this.addSql(`alter table "slide" alter column "created_at" set default now();`);
    this.addSql(`alter table "slide" alter column "updated_at" set default now();`);
    this.addSql(
      `create or replace function "slide_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "slide" for each ROW execute function "slide_updated_at_now_fn"();`,
    );

    this.addSql(`alter table "faq" alter column "created_at" set default now();`);
    this.addSql(`alter table "faq" alter column "updated_at" set default now();`);
    this.addSql(
      `create or replace function "faq_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "faq" for each ROW execute function "faq_updated_at_now_fn"();`,
    );

    this.addSql(`alter table "app_user" alter column "created_at" set default now();`);
    this.addSql(`alter table "app_user" alter column "updated_at" set default now();`);
    this.addSql(
      `create or replace function "app_user_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "app_user" for each ROW execute function "app_user_updated_at_now_fn"();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "updated_at_now" on "action_config";`);
    this.addSql(`drop function if exists "action_config_updated_at_now_fn"();`);
    this.addSql(`alter table "action_config" alter column "created_at" drop default;`);
    this.addSql(`alter table "action_config" alter column "updated_at" drop default;`);

    this.addSql(`drop trigger if exists "updated_at_now" on "app_user";`);
    this.addSql(`drop function if exists "app_user_updated_at_now_fn"();`);
    this.addSql(`alter table "app_user" alter column "created_at" drop default;`);
    this.addSql(`alter table "app_user" alter column "updated_at" drop default;`);

    this.addSql(`drop trigger if exists "updated_at_now" on "deck";`);
    this.addSql(`drop function if exists "deck_updated_at_now_fn"();`);
    this.addSql(`alter table "deck" alter column "created_at" drop default;`);
    this.addSql(`alter table "deck" alter column "updated_at" drop default;`);

    this.addSql(`drop trigger if exists "updated_at_now" on "deck_branding";`);
    this.addSql(`drop function if exists "deck_branding_updated_at_now_fn"();`);
    this.addSql(`alter table "deck_branding" alter column "created_at" drop default;`);
    this.addSql(`alter table "deck_branding" alter column "updated_at" drop default;`);

    this.addSql(`drop trigger if exists "updated_at_now" on "deck_intro";`);
    this.addSql(`drop function if exists "deck_intro_updated_at_now_fn"();`);
    this.addSql(`alter table "deck_intro" alter column "created_at" drop default;`);
    this.addSql(`alter table "deck_intro" alter column "updated_at" drop default;`);

    this.addSql(`drop trigger if exists "updated_at_now" on "faq";`);
    this.addSql(`drop function if exists "faq_updated_at_now_fn"();`);
    this.addSql(`alter table "faq" alter column "created_at" drop default;`);
    this.addSql(`alter table "faq" alter column "updated_at" drop default;`);

    this.addSql(`drop trigger if exists "updated_at_now" on "generation_job";`);
    this.addSql(`drop function if exists "generation_job_updated_at_now_fn"();`);
    this.addSql(`alter table "generation_job" alter column "created_at" drop default;`);
    this.addSql(`alter table "generation_job" alter column "updated_at" drop default;`);

    this.addSql(`drop trigger if exists "updated_at_now" on "kb_document";`);
    this.addSql(`drop function if exists "kb_document_updated_at_now_fn"();`);
    this.addSql(`alter table "kb_document" alter column "created_at" drop default;`);
    this.addSql(`alter table "kb_document" alter column "updated_at" drop default;`);

    this.addSql(`drop trigger if exists "updated_at_now" on "notification_delivery";`);
    this.addSql(`drop function if exists "notification_delivery_updated_at_now_fn"();`);
    this.addSql(`alter table "notification_delivery" alter column "created_at" drop default;`);
    this.addSql(`alter table "notification_delivery" alter column "updated_at" drop default;`);

    this.addSql(`drop trigger if exists "updated_at_now" on "notification_subscription";`);
    this.addSql(`drop function if exists "notification_subscription_updated_at_now_fn"();`);
    this.addSql(`alter table "notification_subscription" alter column "created_at" drop default;`);
    this.addSql(`alter table "notification_subscription" alter column "updated_at" drop default;`);

    this.addSql(`drop trigger if exists "updated_at_now" on "slide";`);
    this.addSql(`drop function if exists "slide_updated_at_now_fn"();`);
    this.addSql(`alter table "slide" alter column "created_at" drop default;`);
    this.addSql(`alter table "slide" alter column "updated_at" drop default;`);
  }
}
