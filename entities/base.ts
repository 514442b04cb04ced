import { defineEntity, p } from '@mikro-orm/core';

/**
 * What most entities share: a UUIDv7 id assigned in the application (see `ids.ts`) and their
 * timestamps. `updatedAt` is set by the domain layer (`domain/changes.ts`), not by a flush
 * hook, so an answer and the event built beside it carry exactly the stored value.
 */
export const BaseEntity = defineEntity({
  name: 'BaseEntity',
  abstract: true,
  properties: {
    id: p.uuid().primary(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()),
  },
});
