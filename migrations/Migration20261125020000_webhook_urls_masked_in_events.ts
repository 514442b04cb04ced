import { Migration } from '@mikro-orm/migrations';
import { maskWebhookUrl } from '../domain/notifications/webhook-url-mask.ts';

/**
 * Events of subscriptions carry the webhook URL masked (docs/decisions/023-webhook-url-masking.md);
 * those written before carry it whole, tokens included, to every reader of the log and to other
 * subscriptions on a replay: masked here. One way: the whole URLs are not kept anywhere else.
 */
export class Migration20261125020000_webhook_urls_masked_in_events extends Migration {
  override name = 'Migration20261125020000_webhook_urls_masked_in_events';

  override async up(): Promise<void> {
    // Few rows (one per change of a subscription), found in one pass over the log.
    const rows = await this.execute(
      `select id, payload->'channelConfig'->>'url' as url from "event"
        where aggregate_type = 'notification_subscription' and payload->'channelConfig'->>'url' is not null`,
    );
    const changed = rows
      .map((row) => ({ id: String(row.id), url: maskWebhookUrl(String(row.url)) }))
      .filter((row, i) => row.url !== String(rows[i]!.url));
    for (let start = 0; start < changed.length; start += 1000) {
      await this.execute(
        `update "event" e set payload = jsonb_set(e.payload, '{channelConfig,url}', to_jsonb(v.url))
           from jsonb_to_recordset(?::jsonb) as v(id uuid, url text) where e.id = v.id`,
        [JSON.stringify(changed.slice(start, start + 1000))],
      );
    }
  }

  override down(): void {
    // Nothing to undo that can be undone: the masked parts are gone.
  }
}
