import { Migration } from '@mikro-orm/migrations';

/**
 * The open live streams of every instance (entities/OpenStream.ts; decision 063), unlogged: an open
 * or a close is worth no WAL write, and a crash that empties the table only makes each instance end
 * the streams it holds (their clients reconnect and are counted again).
 */
export class Migration20261128090000_open_streams extends Migration {
  override name = 'Migration20261128090000_open_streams';

  override up(): void | Promise<void> {
    this.addSql(
      `create unlogged table "open_stream" ("id" uuid not null, "organization_id" uuid not null, "caller_key" varchar(200) not null, "instance_id" uuid not null, "lease_until" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "open_stream_organization_id_caller_key_index" on "open_stream" ("organization_id", "caller_key");`,
    );
    this.addSql(`create index "open_stream_instance_id_index" on "open_stream" ("instance_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "open_stream";`);
  }
}
