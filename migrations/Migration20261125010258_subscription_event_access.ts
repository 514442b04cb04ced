import { Migration } from '@mikro-orm/migrations';

export class Migration20261125010258_subscription_event_access extends Migration {
  override name = 'Migration20261125010258_subscription_event_access';

  override up(): void | Promise<void> {
    // The access whose events a subscription may receive. Who made the existing ones is not
    // recorded: they get admin, so none goes on receiving API keys' events (owner's) unnoticed;
    // an owner who sets its channelConfig again makes it an owner's.
    this.addSql(`alter table "notification_subscription" add "event_access" text not null default 'admin';`);
    this.addSql(
      `alter table "notification_subscription" add constraint "notification_subscription_event_access_check" check ("event_access" in ('read', 'write', 'admin', 'owner'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "notification_subscription" drop constraint "notification_subscription_event_access_check";`,
    );
    this.addSql(`alter table "notification_subscription" drop column "event_access";`);
  }
}
