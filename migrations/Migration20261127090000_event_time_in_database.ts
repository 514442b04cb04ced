import { Migration } from '@mikro-orm/migrations';

/**
 * An event's time is the database's clock when its row is inserted (`clock_timestamp()`, entities/Event.ts),
 * no longer a value the service computed before its change waited for any lock.
 */
export class Migration20261127090000_event_time_in_database extends Migration {
  override name = 'Migration20261127090000_event_time_in_database';

  override up(): void | Promise<void> {
    this.addSql(`alter table "event" alter column "occurred_at" set default clock_timestamp();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "event" alter column "occurred_at" drop default;`);
  }
}
