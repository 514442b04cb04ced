import type { EntityManager } from '@mikro-orm/postgresql';
import { GenerationJob } from '../../entities/GenerationJob.ts';
import { applyChanges } from '../changes.ts';
import { recordEvent, SYSTEM_ACTOR } from '../events/events.ts';
import { objectKeyFor } from '../object-keys.ts';
import type { Services } from '../services.ts';
import { speakToObject } from '../speech/speak.ts';
import { toJobOutput } from './job-output.ts';

/**
 * The body of the narration worker (`app/workers/generation-runner.ts` runs it in its work
 * loop): claiming jobs, speaking a deck, releasing the jobs it stops working on.
 */
export interface ClaimedJob {
  id: string;
  deckId: string;
  organizationId: string;
  voiceId: string | null;
  currentSlide: number;
}

/**
 * Claims pending jobs, and processing jobs whose worker stopped renewing its lease (it died):
 * `skip locked`, so instances never take the same job.
 */
export async function claimJobs(
  em: EntityManager,
  room: number,
  leaseSeconds: number,
): Promise<ClaimedJob[]> {
  return em.execute<ClaimedJob[]>(
    `update generation_job j
        set status = 'processing', locked_until = now() + make_interval(secs => ?),
            started_at = coalesce(j.started_at, now())
       from deck d
      where d.id = j.deck_id and j.id in (
        select id from generation_job
         where status = 'pending' or (status = 'processing' and locked_until < now())
         order by created_at limit ? for update skip locked)
      returning j.id, j.deck_id as "deckId", d.organization_id as "organizationId",
                d.voice_id as "voiceId", j.current_slide as "currentSlide"`,
    [leaseSeconds, room],
  );
}

/**
 * Speaks every slide's narration script in order (from where the job got to), stores each
 * MP3 and points the slide's `audioUrl` at it, then the intro's script; `completed` at the
 * end, or `failed` with the reason when something cannot be spoken. The job's lease
 * (`leaseSeconds`, GENERATION_LEASE_SECONDS) is renewed after every slide.
 */
export async function narrateDeck(
  em: EntityManager,
  services: Services,
  job: ClaimedJob,
  signal: AbortSignal,
  leaseSeconds: number,
): Promise<void> {
  const voiceId = job.voiceId ?? services.speech.defaultVoiceId;
  const slides = await em.execute<{ id: string; slide_id: string; narration_script: string }[]>(
    `select id, slide_id, narration_script from slide
      where deck_id = ? and narration_script ~ '\\S' order by order_index`,
    [job.deckId],
  );
  await em.execute('update generation_job set total_slides = ? where id = ?', [slides.length, job.id]);

  for (let index = job.currentSlide; index < slides.length; index++) {
    const slide = slides[index]!;
    const key = objectKeyFor(job.organizationId, 'audio', slide.id, `narration-${job.id}.mp3`);
    const spoken = await speakToObject(
      services,
      job.organizationId,
      slide.narration_script,
      voiceId,
      key,
      signal,
    );
    // Stopping: leave the job as far as it got; the released lease lets another instance go on.
    signal.throwIfAborted();
    if (!spoken.ok)
      return finish(em, job, 'failed', `Slide ${slide.slide_id} could not be spoken: ${spoken.reason}`);
    await em.transactional(async (tx) => {
      await tx.execute('update slide set audio_url = ? where id = ?', [key, slide.id]);
      await tx.execute(
        `update generation_job set current_slide = ?, locked_until = now() + make_interval(secs => ?)
          where id = ?`,
        [index + 1, leaseSeconds, job.id],
      );
    });
  }

  const [intro] = await em.execute<{ script: string; voice_id: string | null }[]>(
    'select script, voice_id from deck_intro where deck_id = ?',
    [job.deckId],
  );
  if (intro) {
    const key = objectKeyFor(job.organizationId, 'audio', job.deckId, `intro-${job.id}.mp3`);
    const spoken = await speakToObject(
      services,
      job.organizationId,
      intro.script,
      intro.voice_id ?? voiceId,
      key,
      signal,
    );
    signal.throwIfAborted();
    if (!spoken.ok) return finish(em, job, 'failed', `The intro could not be spoken: ${spoken.reason}`);
    await em.execute('update deck_intro set audio_key = ? where deck_id = ?', [key, job.deckId]);
  }
  await finish(em, job, 'completed', null);
}

async function finish(
  em: EntityManager,
  job: ClaimedJob,
  status: 'completed' | 'failed',
  error: string | null,
) {
  await em.transactional(async (tx) => {
    const row = await tx.findOneOrFail(GenerationJob, job.id, { populate: ['deck'], refresh: true });
    applyChanges(row, { status, error, lockedUntil: null, completedAt: new Date() });
    recordEvent(
      tx,
      { organizationId: job.organizationId, actor: SYSTEM_ACTOR },
      status === 'completed' ? 'generation_job.completed' : 'generation_job.failed',
      { aggregateId: job.id, deckId: job.deckId, payload: toJobOutput(row) },
    );
  });
}

/**
 * Ends the leases of jobs this instance stops working on: still `processing` (with the
 * progress made), but claimable at once by another instance, which goes on from `current_slide`.
 */
export async function releaseJobs(em: EntityManager, jobs: ClaimedJob[]): Promise<void> {
  await em.execute(
    `update generation_job set locked_until = now() - interval '1 second'
      where id = any(cast(? as uuid[])) and status = 'processing'`,
    // A PostgreSQL array literal of uuids read from the database: nothing needs quoting.
    [`{${jobs.map((job) => job.id).join(',')}}`],
  );
}
