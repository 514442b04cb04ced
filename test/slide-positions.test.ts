import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSignedIn } from './helpers/app-setup.ts';
import type { HttpClient } from './helpers/http-client.ts';
import type { TestApp } from './helpers/test-app.ts';

/**
 * Slide positions are unique per deck without a unique index on them (migration
 * `slide_positions`): statement-level triggers check them, so that a reorder, which changes
 * no indexed column, moves slides with HOT updates. These tests hold both halves.
 */
let t: TestApp;
let user: HttpClient & { organizationId: string };

beforeAll(async () => ({ t, user } = await startSignedIn()));
afterAll(() => t.close());

const sql = <T>(query: string, params: unknown[] = []) =>
  t.app.database.orm.em.fork().execute<T[]>(query, params);

async function deckWithSlides(count: number): Promise<{ deckId: string; ids: string[] }> {
  const deckId = (await user.post('/api/decks', { name: 'Positions' })).body.id as string;
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await user.post(`/api/decks/${deckId}/slides`, {})).body.id);
  return { deckId, ids };
}

describe('slide positions', () => {
  it('refuses two slides of a deck at one position, from an UPDATE or an INSERT, as a unique violation', async () => {
    const { deckId, ids } = await deckWithSlides(3);
    await expect(sql('update slide set order_index = 0 where id = ?', [ids[2]])).rejects.toMatchObject({
      code: '23505',
    });
    await expect(
      sql(
        `insert into slide (id, deck_id, slide_id, bullets, order_index, slide_type, created_at, updated_at)
         values (gen_random_uuid(), ?, 'slide-99', '[]', 1, 'standard', now(), now())`,
        [deckId],
      ),
    ).rejects.toMatchObject({ code: '23505' });
    // A permutation in one statement is fine, and so is the same position in another deck.
    await sql('update slide set order_index = 2 - order_index where deck_id = ?', [deckId]);
    const other = await deckWithSlides(1);
    expect(
      (await sql<{ order_index: number }>('select order_index from slide where id = ?', [other.ids[0]]))[0],
    ).toEqual({ order_index: 0 });
    const rows = await sql<{ id: string }>('select id from slide where deck_id = ? order by order_index', [
      deckId,
    ]);
    expect(rows.map((row) => row.id)).toEqual([...ids].reverse());
  });

  it('keeps every column a reorder writes out of the indexes, and room on the pages for HOT updates', async () => {
    const indexed = await sql<{ column: string }>(
      `select a.attname as column
         from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
        where i.indrelid = 'slide'::regclass`,
    );
    const columns = new Set(indexed.map((row) => row.column));
    expect(columns.has('order_index')).toBe(false);
    expect(columns.has('updated_at')).toBe(false);
    const [table] = await sql<{ options: string[] | null }>(
      `select reloptions as options from pg_class where oid = 'slide'::regclass`,
    );
    expect(table?.options).toContain('fillfactor=70');
  });
});
