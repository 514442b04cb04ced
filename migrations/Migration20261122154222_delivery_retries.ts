import { Migration } from '@mikro-orm/migrations';

export class Migration20261122154222_delivery_retries extends Migration {
  override name = 'Migration20261122154222_delivery_retries';

  override up(): void | Promise<void> {
    this.addSql(`alter table "notification_delivery" add "retry_from_attempt" int not null default 0;`);

    this.addSql(`alter table "delivery_attempt" add "response_body" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "delivery_attempt" drop column "response_body";`);

    this.addSql(`alter table "notification_delivery" drop column "retry_from_attempt";`);
  }
}
