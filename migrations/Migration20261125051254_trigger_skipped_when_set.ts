import { Migration } from '@mikro-orm/migrations';

/**
 * The updated_at trigger skips its function when the statement already set `updated_at = now()`
 * (the slide reorder), generated from `UPDATED_AT_TRIGGER` in entities/base.ts.
 */
export class Migration20261125051254_trigger_skipped_when_set extends Migration {
  override name = 'Migration20261125051254_trigger_skipped_when_set';

  override up(): void | Promise<void> {
    this.addSql(`drop trigger if exists "updated_at_now" on "kb_document";`);
    this.addSql(`drop function if exists "kb_document_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "kb_document_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(`create trigger "updated_at_now" BEFORE UPDATE on "kb_document" for each ROW
  when (new.updated_at is distinct from now()) execute function "kb_document_updated_at_now_fn"();`);

    this.addSql(`drop trigger if exists "updated_at_now" on "deck";`);
    this.addSql(`drop function if exists "deck_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "deck_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(`create trigger "updated_at_now" BEFORE UPDATE on "deck" for each ROW
  when (new.updated_at is distinct from now()) execute function "deck_updated_at_now_fn"();`);

    this.addSql(`drop trigger if exists "updated_at_now" on "notification_subscription";`);
    this.addSql(`drop function if exists "notification_subscription_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "notification_subscription_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(`create trigger "updated_at_now" BEFORE UPDATE on "notification_subscription" for each ROW
  when (new.updated_at is distinct from now()) execute function "notification_subscription_updated_at_now_fn"();`);

    this.addSql(`drop trigger if exists "updated_at_now" on "notification_delivery";`);
    this.addSql(`drop function if exists "notification_delivery_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "notification_delivery_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(`create trigger "updated_at_now" BEFORE UPDATE on "notification_delivery" for each ROW
  when (new.updated_at is distinct from now()) execute function "notification_delivery_updated_at_now_fn"();`);

    this.addSql(`drop trigger if exists "updated_at_now" on "generation_job";`);
    this.addSql(`drop function if exists "generation_job_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "generation_job_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(`create trigger "updated_at_now" BEFORE UPDATE on "generation_job" for each ROW
  when (new.updated_at is distinct from now()) execute function "generation_job_updated_at_now_fn"();`);

    this.addSql(`drop trigger if exists "updated_at_now" on "deck_intro";`);
    this.addSql(`drop function if exists "deck_intro_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "deck_intro_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(`create trigger "updated_at_now" BEFORE UPDATE on "deck_intro" for each ROW
  when (new.updated_at is distinct from now()) execute function "deck_intro_updated_at_now_fn"();`);

    this.addSql(`drop trigger if exists "updated_at_now" on "deck_branding";`);
    this.addSql(`drop function if exists "deck_branding_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "deck_branding_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(`create trigger "updated_at_now" BEFORE UPDATE on "deck_branding" for each ROW
  when (new.updated_at is distinct from now()) execute function "deck_branding_updated_at_now_fn"();`);

    this.addSql(`drop trigger if exists "updated_at_now" on "action_config";`);
    this.addSql(`drop function if exists "action_config_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "action_config_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(`create trigger "updated_at_now" BEFORE UPDATE on "action_config" for each ROW
  when (new.updated_at is distinct from now()) execute function "action_config_updated_at_now_fn"();`);

    this.addSql(`drop trigger if exists "updated_at_now" on "slide";`);
    this.addSql(`drop function if exists "slide_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "slide_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(`create trigger "updated_at_now" BEFORE UPDATE on "slide" for each ROW
  when (new.updated_at is distinct from now()) execute function "slide_updated_at_now_fn"();`);

    this.addSql(`drop trigger if exists "updated_at_now" on "faq";`);
    this.addSql(`drop function if exists "faq_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "faq_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(`create trigger "updated_at_now" BEFORE UPDATE on "faq" for each ROW
  when (new.updated_at is distinct from now()) execute function "faq_updated_at_now_fn"();`);

    this.addSql(`drop trigger if exists "updated_at_now" on "app_user";`);
    this.addSql(`drop function if exists "app_user_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "app_user_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(`create trigger "updated_at_now" BEFORE UPDATE on "app_user" for each ROW
  when (new.updated_at is distinct from now()) execute function "app_user_updated_at_now_fn"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "updated_at_now" on "action_config";`);
    this.addSql(`drop function if exists "action_config_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "action_config_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "action_config" for each ROW execute function "action_config_updated_at_now_fn"();`,
    );

    this.addSql(`drop trigger if exists "updated_at_now" on "app_user";`);
    this.addSql(`drop function if exists "app_user_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "app_user_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "app_user" for each ROW execute function "app_user_updated_at_now_fn"();`,
    );

    this.addSql(`drop trigger if exists "updated_at_now" on "deck";`);
    this.addSql(`drop function if exists "deck_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "deck_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "deck" for each ROW execute function "deck_updated_at_now_fn"();`,
    );

    this.addSql(`drop trigger if exists "updated_at_now" on "deck_branding";`);
    this.addSql(`drop function if exists "deck_branding_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "deck_branding_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "deck_branding" for each ROW execute function "deck_branding_updated_at_now_fn"();`,
    );

    this.addSql(`drop trigger if exists "updated_at_now" on "deck_intro";`);
    this.addSql(`drop function if exists "deck_intro_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "deck_intro_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "deck_intro" for each ROW execute function "deck_intro_updated_at_now_fn"();`,
    );

    this.addSql(`drop trigger if exists "updated_at_now" on "faq";`);
    this.addSql(`drop function if exists "faq_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "faq_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "faq" for each ROW execute function "faq_updated_at_now_fn"();`,
    );

    this.addSql(`drop trigger if exists "updated_at_now" on "generation_job";`);
    this.addSql(`drop function if exists "generation_job_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "generation_job_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "generation_job" for each ROW execute function "generation_job_updated_at_now_fn"();`,
    );

    this.addSql(`drop trigger if exists "updated_at_now" on "kb_document";`);
    this.addSql(`drop function if exists "kb_document_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "kb_document_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "kb_document" for each ROW execute function "kb_document_updated_at_now_fn"();`,
    );

    this.addSql(`drop trigger if exists "updated_at_now" on "notification_delivery";`);
    this.addSql(`drop function if exists "notification_delivery_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "notification_delivery_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "notification_delivery" for each ROW execute function "notification_delivery_updated_at_now_fn"();`,
    );

    this.addSql(`drop trigger if exists "updated_at_now" on "notification_subscription";`);
    this.addSql(`drop function if exists "notification_subscription_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "notification_subscription_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "notification_subscription" for each ROW execute function "notification_subscription_updated_at_now_fn"();`,
    );

    this.addSql(`drop trigger if exists "updated_at_now" on "slide";`);
    this.addSql(`drop function if exists "slide_updated_at_now_fn"();`);
    this.addSql(
      `create or replace function "slide_updated_at_now_fn"() returns trigger as $$ begin new.updated_at := now(); return new; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "updated_at_now" BEFORE UPDATE on "slide" for each ROW execute function "slide_updated_at_now_fn"();`,
    );
  }
}
