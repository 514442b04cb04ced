import { z } from 'zod';
import { type GenerationJob, JOB_STATUSES } from '../../entities/GenerationJob.ts';

/** A narration job as the routes answer it (and as its events carry it). */
export const jobOutput = z
  .object({
    jobId: z.uuid(),
    status: z.enum(JOB_STATUSES),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    currentSlide: z.int().meta({ description: 'Slides spoken so far' }),
    totalSlides: z.int().meta({ description: 'Slides with a narration script' }),
    // The interface types it a string that a failed job "may carry": left out when there is none.
    error: z
      .string()
      .optional()
      .meta({ description: 'Why the job failed; only on a failed job that says why' }),
  })
  .meta({ id: 'GenerationJob' });

export type JobOutput = z.infer<typeof jobOutput>;

export function toJobOutput(job: GenerationJob): JobOutput {
  return {
    jobId: job.id,
    status: job.status,
    createdAt: job.createdAt.toISOString(),
    updatedAt: job.updatedAt.toISOString(),
    currentSlide: job.currentSlide,
    totalSlides: job.totalSlides,
    ...(job.error != null ? { error: job.error } : {}),
  };
}
