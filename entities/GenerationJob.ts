import { defineEntity, p } from '@mikro-orm/core';
import { BaseEntity } from './base.ts';
import { Deck } from './Deck.ts';

export const JOB_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * A deck narration job: a unit of work in PostgreSQL, claimed by a worker with a lease
 * (`lockedUntil`, renewed per slide). A worker that dies lets the lease lapse; another
 * resumes at `currentSlide`. At most one pending or processing job per deck (partial unique
 * index in the migration).
 */
const GenerationJobSchema = defineEntity({
  name: 'GenerationJob',
  tableName: 'generation_job',
  extends: BaseEntity,
  indexes: [
    { properties: ['deck', 'createdAt'] },
    { properties: ['status', 'createdAt'] },
    {
      name: 'generation_job_one_active_per_deck',
      expression:
        'create unique index "generation_job_one_active_per_deck" on "generation_job" ("deck_id") where "status" in (\'pending\', \'processing\')',
    },
  ],
  // Each change wakes the instances following the deck's progress (generation.onProgress).
  triggers: [
    {
      name: 'generation_job_notify',
      timing: 'after',
      events: ['insert', 'update'],
      forEach: 'row',
      expression:
        'create trigger "generation_job_notify" after insert or update on "generation_job" for each row execute function "generation_job_notify"()',
    },
  ],
  properties: {
    deck: () => p.manyToOne(Deck).deleteRule('cascade'),
    status: p.enum(JOB_STATUSES).default('pending'),
    currentSlide: p.integer().default(0),
    totalSlides: p.integer().default(0),
    error: p.text().nullable(),
    lockedUntil: p.datetime().nullable(),
    startedAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
  },
});

export class GenerationJob extends GenerationJobSchema.class {}
GenerationJobSchema.setClass(GenerationJob);
