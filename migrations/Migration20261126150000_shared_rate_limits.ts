import { Migration } from '@mikro-orm/migrations';

/** The shared per-minute request counters (entities/RateLimitCounter.ts), unlogged: no WAL per count. */
export class Migration20261126150000_shared_rate_limits extends Migration {
  override name = 'Migration20261126150000_shared_rate_limits';

  override up(): void | Promise<void> {
    this.addSql(
      `create unlogged table "rate_limit_counter" ("key" varchar(255) not null, "points" int not null default 0, "expire" bigint null, primary key ("key"));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "rate_limit_counter";`);
  }
}
