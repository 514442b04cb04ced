import { Migration } from '@mikro-orm/migrations';

export class Migration20261125012247_login_throttle_backoff extends Migration {
  override name = 'Migration20261125012247_login_throttle_backoff';

  override up(): void | Promise<void> {
    // When an address last failed for an e-mail, and the time before: the wait between its
    // attempts once the e-mail has many failures from everywhere (domain/auth/login-throttle.ts).
    this.addSql(
      `alter table "login_throttle" add column "last_failure_at" timestamptz null, add column "previous_failure_at" timestamptz null;`,
    );
    // The sweep removes the rows whose window has ended (app/workers/login-throttle-sweep.ts).
    this.addSql(
      `create index "login_throttle_window_started_at_index" on "login_throttle" ("window_started_at");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "login_throttle_window_started_at_index";`);
    this.addSql(
      `alter table "login_throttle" drop column "last_failure_at", drop column "previous_failure_at";`,
    );
  }
}
