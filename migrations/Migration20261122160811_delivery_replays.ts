import { Migration } from '@mikro-orm/migrations';

export class Migration20261122160811_delivery_replays extends Migration {
  override name = 'Migration20261122160811_delivery_replays';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "notification_delivery" drop constraint "notification_delivery_subscription_id_event_id_unique";`,
    );
    this.addSql(`alter table "notification_delivery" add "replay" int not null default 0;`);
    this.addSql(
      `alter table "notification_delivery" add constraint "notification_delivery_subscription_id_event_id_replay_unique" unique ("subscription_id", "event_id", "replay");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "notification_delivery" drop constraint "notification_delivery_subscription_id_event_id_replay_unique";`,
    );
    this.addSql(`alter table "notification_delivery" drop column "replay";`);
    this.addSql(
      `alter table "notification_delivery" add constraint "notification_delivery_subscription_id_event_id_unique" unique ("subscription_id", "event_id");`,
    );
  }
}
