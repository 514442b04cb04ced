import { Migration } from '@mikro-orm/migrations';

export class Migration20261123200000_delivery_waiting_and_claims extends Migration {
  override name = 'Migration20261123200000_delivery_waiting_and_claims';

  override up(): void | Promise<void> {
    // Each claim's own token: renewals and outcomes of a claim whose lease lapsed (and that
    // another instance took over) change nothing.
    this.addSql(`alter table "notification_delivery" add column "claim_token" uuid null;`);
    // Deliveries waiting behind an earlier one of their aggregate (`next_attempt_at` infinity):
    // the sweep that wakes any a concurrent finish missed reads the recent ones only.
    this.addSql(
      `create index "notification_delivery_waiting_index" on "notification_delivery" ("created_at") where "next_attempt_at" = 'infinity';`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "notification_delivery_waiting_index";`);
    this.addSql(`alter table "notification_delivery" drop column "claim_token";`);
  }
}
