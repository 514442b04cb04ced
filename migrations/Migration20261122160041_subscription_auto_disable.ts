import { Migration } from '@mikro-orm/migrations';

export class Migration20261122160041_subscription_auto_disable extends Migration {
  override name = 'Migration20261122160041_subscription_auto_disable';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "notification_subscription" add "disabled_reason" text null, add "failing_since" timestamptz null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "notification_subscription" drop column "disabled_reason", drop column "failing_since";`,
    );
  }
}
