import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity } from './base.ts';
import { Deck } from './Deck.ts';
import { Organization } from './Organization.ts';

export const EXPORT_FORMATS = ['pptx', 'pdf', 'mp4'] as const;
export const EXPORT_STATUSES = ['pending', 'processing', 'completed', 'failed', 'canceled'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/**
 * A deck export (api.md, "Deck export"): a unit of work in PostgreSQL, claimed by a worker with a
 * lease (`lockedUntil`, renewed while it renders) and fenced by `attempt` (each claim counts one
 * more; a worker writes only while the row still carries its attempt, so an instance whose lease
 * lapsed can never overwrite the one that took over). The finished file (and an mp4's WebVTT
 * captions) lives in the object store until `expiresAt`; the sweep then deletes it.
 *
 * `deck` is set null when the deck is deleted: the row then waits for the sweep, which deletes its
 * files and the row (a cascade would leave the files behind); no route answers it any more.
 */
/** A change of a column the export's answer shows (not of its lease). */
const SEEN_CHANGE =
  '(old.status, old.progress_done, old.progress_total, old.warnings, old.error, old.file_key, old.captions_key, old.expires_at) is distinct from (new.status, new.progress_done, new.progress_total, new.warnings, new.error, new.file_key, new.captions_key, new.expires_at)';

const ExportJobSchema = defineEntity({
  name: 'ExportJob',
  tableName: 'export_job',
  extends: BaseEntity,
  indexes: [
    { properties: ['deck', 'createdAt', 'id'] },
    { properties: ['status', 'createdAt'] },
    { properties: ['expiresAt'] },
  ],
  // Each change a caller can see wakes the instances following this export (exports.onProgress);
  // a lease renewal, every EXPORT_POLL_INTERVAL_MS while it renders, does not.
  triggers: [
    {
      name: 'export_job_notify_insert',
      timing: 'after',
      events: ['insert'],
      forEach: 'row',
      expression:
        'create trigger "export_job_notify_insert" after insert on "export_job" for each row execute function "export_job_notify"()',
    },
    {
      name: 'export_job_notify_update',
      timing: 'after',
      events: ['update'],
      forEach: 'row',
      expression: `create trigger "export_job_notify_update" after update on "export_job" for each row when (${SEEN_CHANGE}) execute function "export_job_notify"()`,
    },
  ],
  properties: {
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(),
    deck: () => p.manyToOne(Deck).nullable().deleteRule('set null'),
    format: p.enum(EXPORT_FORMATS),
    includeFaqs: p.boolean().default(true),
    captions: p.boolean().default(true),
    status: p.enum(EXPORT_STATUSES).default('pending'),
    progressDone: p.integer().default(0),
    progressTotal: p.integer().default(0),
    warnings: p.json<string[]>(),
    error: p.text().nullable(),
    fileKey: p.string().length(1024).nullable(),
    fileSize: p.bigint('number').nullable(),
    fileSha256: p.string().length(64).nullable(),
    fileContentType: p.string().length(100).nullable(),
    fileName: p.string().length(255).nullable(),
    captionsKey: p.string().length(1024).nullable(),
    captionsSize: p.bigint('number').nullable(),
    captionsSha256: p.string().length(64).nullable(),
    /** How many times a worker claimed it: the fence of every write a worker makes. */
    attempt: p.integer().default(0),
    lockedUntil: p.datetime().nullable(),
    startedAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    expiresAt: p.datetime(),
  },
});

export class ExportJob extends ExportJobSchema.class {}
ExportJobSchema.setClass(ExportJob);
