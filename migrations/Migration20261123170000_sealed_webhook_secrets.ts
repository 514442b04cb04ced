import { Migration } from '@mikro-orm/migrations';
import { webhookSecretContext } from '../domain/notifications/webhook-secret.ts';
import type { SecretBox } from '../domain/ports/secret-box.ts';

/**
 * Webhook signing secrets sealed at rest (AES-256-GCM under ENCRYPTION_KEY) instead of stored in
 * clear; columns for a rotation's previous secret. Existing secrets are sealed here, in the
 * migration's transaction, so no clear secret survives it. Made per box: the key is the
 * running service's, not something a migration could know on its own (migrations/index.ts
 * passes it to every migration written as a function of the box).
 */
export function Migration20261123170000_sealed_webhook_secrets(box: SecretBox) {
  return class extends Migration {
    override name = 'Migration20261123170000_sealed_webhook_secrets';

    override async up(): Promise<void> {
      await this.execute(`alter table "notification_subscription"
        add "sealed_secret" text null, add "sealed_previous_secret" text null,
        add "previous_secret_expires_at" timestamptz null;`);
      await this.convert('secret', 'sealed_secret', (value, id) => box.seal(value, webhookSecretContext(id)));
      await this.execute(`alter table "notification_subscription" drop column "secret";`);
    }

    override async down(): Promise<void> {
      await this.execute(`alter table "notification_subscription" add "secret" varchar(100) null;`);
      await this.convert('sealed_secret', 'secret', (value, id) => box.open(value, webhookSecretContext(id)));
      await this.execute(`alter table "notification_subscription"
        drop column "sealed_secret", drop column "sealed_previous_secret", drop column "previous_secret_expires_at";`);
    }

    /** Rewrites one column into another, in batches of ids (one UPDATE per batch). */
    private async convert(from: string, to: string, change: (value: string, id: string) => string) {
      let after = '00000000-0000-0000-0000-000000000000';
      for (;;) {
        const rows = await this.execute(
          `select id, "${from}" as value from "notification_subscription"
            where "${from}" is not null and id > ? order by id limit 1000`,
          [after],
        );
        if (rows.length === 0) return;
        const ids = rows.map((row) => String(row.id));
        const changed = rows.map((row) => ({ id: row.id, value: change(String(row.value), String(row.id)) }));
        await this.execute(
          `update "notification_subscription" s set "${to}" = v.value
             from jsonb_to_recordset(?::jsonb) as v(id uuid, value text) where s.id = v.id`,
          [JSON.stringify(changed)],
        );
        after = ids[ids.length - 1]!;
      }
    }
  };
}
