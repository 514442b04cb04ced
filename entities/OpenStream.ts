import { defineEntity, p } from '@mikro-orm/core';

/**
 * One live stream open on some instance (adapters/events/live-hub.ts; decision 063): what the
 * organization-wide and per-caller stream caps count, on every instance alike. Written only by
 * the stream registry's own statements, never through the unit of work. Its instance renews
 * `leaseUntil` while it runs; a row whose lease has lapsed (its instance was killed) counts no
 * more and is deleted by the next open of its organization. UNLOGGED (its migration): a crash
 * that empties it ends nothing wrongly, as each instance then ends the streams it no longer finds.
 */
const OpenStreamSchema = defineEntity({
  name: 'OpenStream',
  tableName: 'open_stream',
  indexes: [{ properties: ['organizationId', 'callerKey'] }, { properties: ['instanceId'] }],
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    /** `user:<id>` or `api_key:<id>`: the caller's streams, counted against STREAMS_PER_CALLER. */
    callerKey: p.string().length(200),
    /** The instance holding it (random at each start). */
    instanceId: p.uuid(),
    leaseUntil: p.datetime(),
  },
});

export class OpenStream extends OpenStreamSchema.class {}
OpenStreamSchema.setClass(OpenStream);
