// Every migration, in order. `npm run db:migration:create` writes a new file and adds it here.
// A migration that needs the service's encryption key is a function of the SecretBox.
import type { SecretBox } from '../domain/ports/secret-box.ts';
import { Migration20261121213459_foundation } from './Migration20261121213459_foundation.ts';
import { Migration20261121214848_deck_authoring } from './Migration20261121214848_deck_authoring.ts';
import { Migration20261121220722_notifications } from './Migration20261121220722_notifications.ts';
import { Migration20261121222004_files } from './Migration20261121222004_files.ts';
import { Migration20261121224054_speech } from './Migration20261121224054_speech.ts';
import { Migration20261122081920_sessions_hashed } from './Migration20261122081920_sessions_hashed.ts';
import { Migration20261122133854_event_counts } from './Migration20261122133854_event_counts.ts';
import { Migration20261122140000_slide_positions } from './Migration20261122140000_slide_positions.ts';
import { Migration20261122154222_delivery_retries } from './Migration20261122154222_delivery_retries.ts';
import { Migration20261122160041_subscription_auto_disable } from './Migration20261122160041_subscription_auto_disable.ts';
import { Migration20261122160811_delivery_replays } from './Migration20261122160811_delivery_replays.ts';
import { Migration20261123163905_api_keys } from './Migration20261123163905_api_keys.ts';
import { Migration20261123165400_delivery_pending_order } from './Migration20261123165400_delivery_pending_order.ts';
import { Migration20261123170000_sealed_webhook_secrets } from './Migration20261123170000_sealed_webhook_secrets.ts';
import { Migration20261123180000_idempotency_keys } from './Migration20261123180000_idempotency_keys.ts';
import { Migration20261123200000_delivery_waiting_and_claims } from './Migration20261123200000_delivery_waiting_and_claims.ts';
import { Migration20261125010258_subscription_event_access } from './Migration20261125010258_subscription_event_access.ts';
import { Migration20261125012247_login_throttle_backoff } from './Migration20261125012247_login_throttle_backoff.ts';
import { Migration20261125020000_webhook_urls_masked_in_events } from './Migration20261125020000_webhook_urls_masked_in_events.ts';
import { Migration20261125035940_timestamps_in_database } from './Migration20261125035940_timestamps_in_database.ts';
import { Migration20261125051254_trigger_skipped_when_set } from './Migration20261125051254_trigger_skipped_when_set.ts';
import { Migration20261126140000_live_events } from './Migration20261126140000_live_events.ts';
import { Migration20261126150000_shared_rate_limits } from './Migration20261126150000_shared_rate_limits.ts';
import { Migration20261127090000_event_time_in_database } from './Migration20261127090000_event_time_in_database.ts';
import { Migration20261128090000_open_streams } from './Migration20261128090000_open_streams.ts';
import { Migration20261129005057_event_deck_index } from './Migration20261129005057_event_deck_index.ts';
import { Migration20261129011934_export_jobs } from './Migration20261129011934_export_jobs.ts';

export const migrationsFor = (box: SecretBox) => [
  { name: 'Migration20261121213459_foundation', class: Migration20261121213459_foundation },
  { name: 'Migration20261121214848_deck_authoring', class: Migration20261121214848_deck_authoring },
  { name: 'Migration20261121220722_notifications', class: Migration20261121220722_notifications },
  { name: 'Migration20261121222004_files', class: Migration20261121222004_files },
  { name: 'Migration20261121224054_speech', class: Migration20261121224054_speech },
  { name: 'Migration20261122081920_sessions_hashed', class: Migration20261122081920_sessions_hashed },
  { name: 'Migration20261122133854_event_counts', class: Migration20261122133854_event_counts },
  { name: 'Migration20261122140000_slide_positions', class: Migration20261122140000_slide_positions },
  { name: 'Migration20261122154222_delivery_retries', class: Migration20261122154222_delivery_retries },
  {
    name: 'Migration20261122160041_subscription_auto_disable',
    class: Migration20261122160041_subscription_auto_disable,
  },
  { name: 'Migration20261122160811_delivery_replays', class: Migration20261122160811_delivery_replays },
  { name: 'Migration20261123163905_api_keys', class: Migration20261123163905_api_keys },
  {
    name: 'Migration20261123165400_delivery_pending_order',
    class: Migration20261123165400_delivery_pending_order,
  },
  {
    name: 'Migration20261123170000_sealed_webhook_secrets',
    class: Migration20261123170000_sealed_webhook_secrets(box),
  },
  { name: 'Migration20261123180000_idempotency_keys', class: Migration20261123180000_idempotency_keys },
  {
    name: 'Migration20261123200000_delivery_waiting_and_claims',
    class: Migration20261123200000_delivery_waiting_and_claims,
  },
  {
    name: 'Migration20261125010258_subscription_event_access',
    class: Migration20261125010258_subscription_event_access,
  },
  {
    name: 'Migration20261125012247_login_throttle_backoff',
    class: Migration20261125012247_login_throttle_backoff,
  },
  {
    name: 'Migration20261125020000_webhook_urls_masked_in_events',
    class: Migration20261125020000_webhook_urls_masked_in_events,
  },
  {
    name: 'Migration20261125035940_timestamps_in_database',
    class: Migration20261125035940_timestamps_in_database,
  },
  {
    name: 'Migration20261125051254_trigger_skipped_when_set',
    class: Migration20261125051254_trigger_skipped_when_set,
  },
  { name: 'Migration20261126140000_live_events', class: Migration20261126140000_live_events },
  { name: 'Migration20261126150000_shared_rate_limits', class: Migration20261126150000_shared_rate_limits },
  {
    name: 'Migration20261127090000_event_time_in_database',
    class: Migration20261127090000_event_time_in_database,
  },
  { name: 'Migration20261128090000_open_streams', class: Migration20261128090000_open_streams },
  { name: 'Migration20261129005057_event_deck_index', class: Migration20261129005057_event_deck_index },
  { name: 'Migration20261129011934_export_jobs', class: Migration20261129011934_export_jobs },
];
