import { Migration } from '@mikro-orm/migrations';

/**
 * The event log's `deckId` filter (issue 38): the deck's events, newest first, read along an index
 * that leads with (organization, deck) and ends with the log's order, as every other filter's does;
 * its total counts along the same index.
 */
export class Migration20261129005057_event_deck_index extends Migration {
  override name = 'Migration20261129005057_event_deck_index';

  override up(): void | Promise<void> {
    this.addSql(
      `create index "event_organization_id_deck_id_occurred_at_id_index" on "event" ("organization_id", "deck_id", "occurred_at", "id");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "event_organization_id_deck_id_occurred_at_id_index";`);
  }
}
