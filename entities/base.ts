import { defineEntity, p, type TriggerDef } from '@mikro-orm/core';

/**
 * Timestamps are the database's (docs/decisions/044-timestamps-in-the-database.md): `created_at` and
 * `updated_at` default to the transaction's `now()`, and this trigger moves `updated_at` on
 * every UPDATE of the row, so a raw SQL write and an entity write agree without either
 * remembering. (MikroORM writes a row only when a field changed, so a no-op writes nothing.)
 * Declared on the entity so a generated migration knows it; each table gets its own function.
 */
export const UPDATED_AT_TRIGGER: TriggerDef = {
  name: 'updated_at_now',
  timing: 'before',
  events: ['update'],
  forEach: 'row',
  body: 'new.updated_at := now(); return new;',
  // A statement that already sets `updated_at = now()` skips the function call: the 1,000-row
  // reorder does (2 ms of its ~14 ms, docs/performance.md, "bench:reorder").
  // Written as PostgreSQL prints it back, so a generated migration sees no difference.
  when: '(new.updated_at IS DISTINCT FROM now())',
};

/** The stored timestamps: read back after an insert (RETURNING) or a write (`domain/mutation.ts`). */
export const timestamps = () => ({
  createdAt: p.datetime().defaultRaw('now()'),
  updatedAt: p.datetime().defaultRaw('now()'),
});

/** What most entities share: a UUIDv7 id assigned in the application (see `ids.ts`) and their timestamps. */
export const BaseEntity = defineEntity({
  name: 'BaseEntity',
  abstract: true,
  triggers: [UPDATED_AT_TRIGGER],
  properties: {
    id: p.uuid().primary(),
    ...timestamps(),
  },
});
