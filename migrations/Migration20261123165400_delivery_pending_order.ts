import { Migration } from '@mikro-orm/migrations';

export class Migration20261123165400_delivery_pending_order extends Migration {
  override name = 'Migration20261123165400_delivery_pending_order';

  override up(): void | Promise<void> {
    this.addSql(
      `create index "notification_delivery_pending_order_index" on "notification_delivery" ("subscription_id", "aggregate_key", "event_occurred_at", "event_id") where "completed_at" is null;`,
    );
    // It served only that check, and cost every insert and finishing update an entry.
    this.addSql(`drop index "notification_delivery_subscription_id_aggregate_ke_49a8c_index";`);
  }

  override down(): void | Promise<void> {
    this.addSql(
      `create index "notification_delivery_subscription_id_aggregate_ke_49a8c_index" on "notification_delivery" ("subscription_id", "aggregate_key", "event_occurred_at");`,
    );
    this.addSql(`drop index "notification_delivery_pending_order_index";`);
  }
}
