import { setTimeout as sleep } from 'node:timers/promises';
import PQueue from 'p-queue';
import type { Logger } from '../../domain/ports/logger.ts';

/**
 * A background worker of one instance: each round `prepare`s, `claim`s as many jobs as there
 * is room for, and `run`s them at most `concurrency` at a time (p-queue). Rounds never
 * overlap; `nudge()` starts one at once (commits that create work call it), otherwise the
 * loop polls. Claims are made in PostgreSQL, so any number of instances share the work.
 * A round that fails (the database is down) is logged and retried with exponential backoff.
 */
export interface WorkLoopOptions<Job> {
  name: string;
  pollIntervalMs: number;
  concurrency: number;
  logger: Logger;
  /** Work before the claim; answers true when it left some undone (the next round starts at once). */
  prepare?: () => Promise<boolean | undefined>;
  claim: (room: number) => Promise<Job[]>;
  /** Does the job; `signal` aborts when the instance stops: give up without recording an outcome. */
  run: (job: Job, signal: AbortSignal) => Promise<void>;
  /** Ends the leases of claimed jobs this instance will not finish, so another takes them up at once. */
  release: (jobs: Job[]) => Promise<void>;
  /**
   * Claim no more than can run now (default: up to twice the concurrency, claimed a round at a
   * time, so the next ones are at hand). For work that holds a shared share while claimed (an
   * organization's exports at once), a job claimed but waiting here would hold it for nothing.
   */
  claimOnlyWhatRuns?: boolean;
}

/** Longest pause between rounds while they keep failing. */
const MAX_BACKOFF_MS = 30_000;
/** Part of the stop timeout kept for aborted jobs to wind down and for releasing their leases. */
const ABORT_GRACE_MS = 1000;

export class WorkLoop<Job> {
  readonly #options: WorkLoopOptions<Job>;
  readonly #queue: PQueue;
  readonly #abort = new AbortController();
  /** Claimed and not yet finished (queued or running). */
  readonly #inHand = new Set<Job>();
  readonly #running = new Set<Job>();
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<void> | undefined;
  #again = false;
  #stopped = true;
  #failedRounds = 0;

  constructor(options: WorkLoopOptions<Job>) {
    this.#options = options;
    this.#queue = new PQueue({ concurrency: options.concurrency });
  }

  start(): void {
    this.#stopped = false;
    this.nudge();
  }

  nudge(): void {
    if (this.#stopped) return;
    if (this.#round) {
      this.#again = true;
      return;
    }
    // While rounds fail, a nudge does not cut the backoff short.
    if (this.#failedRounds > 0 && this.#timer) return;
    clearTimeout(this.#timer);
    this.#round = this.#runRound().finally(() => {
      this.#round = undefined;
      if (this.#stopped) return;
      const delay =
        this.#failedRounds > 0 ? this.#backoffMs() : this.#again ? 0 : this.#options.pollIntervalMs;
      this.#again = false;
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.nudge();
      }, delay);
    });
  }

  #backoffMs(): number {
    const { pollIntervalMs } = this.#options;
    return Math.min(MAX_BACKOFF_MS, pollIntervalMs * 2 ** Math.min(this.#failedRounds, 20));
  }

  async #runRound(): Promise<void> {
    const { logger, name, concurrency } = this.#options;
    try {
      if (await this.#options.prepare?.()) this.#again = true;
      const room = this.#room();
      // Claims wait until a whole round of room is free: one claim for many jobs, not one each.
      if (room < (this.#options.claimOnlyWhatRuns ? 1 : concurrency) || this.#stopped) {
        this.#failedRounds = 0;
        return;
      }
      const jobs = await this.#options.claim(room);
      this.#failedRounds = 0;
      for (const job of jobs) {
        this.#inHand.add(job);
        this.#queue.add(() => this.#runJob(job));
      }
      if (jobs.length === room) this.#again = true;
    } catch (error) {
      this.#failedRounds += 1;
      logger.error({ err: error, loop: name, retryInMs: this.#backoffMs() }, 'work round failed');
    }
  }

  async #runJob(job: Job): Promise<void> {
    const { signal } = this.#abort;
    if (signal.aborted) return;
    this.#running.add(job);
    try {
      await this.#options.run(job, signal);
      this.#inHand.delete(job);
    } catch (error) {
      // Aborted: stop() releases it. Otherwise it stays leased and is retried when the lease lapses.
      if (!signal.aborted) {
        this.#inHand.delete(job);
        this.#options.logger.error({ err: error, loop: this.#options.name }, 'job failed');
      }
    } finally {
      this.#running.delete(job);
    }
    // Once the queue has counted this job out (it does after this function returns).
    setImmediate(() => {
      if (this.#room() >= (this.#options.claimOnlyWhatRuns ? 1 : this.#options.concurrency)) this.nudge();
    });
  }

  /** Claimed jobs are kept to twice the concurrency: the next ones are at hand as runs end. */
  #room(): number {
    const held = this.#options.claimOnlyWhatRuns ? 1 : 2;
    return this.#options.concurrency * held - this.#queue.size - this.#queue.pending;
  }

  /**
   * Stops claiming and gives back the jobs not started; waits for the running ones, and once
   * `timeoutMs` is nearly spent aborts them and gives back those that did not finish.
   */
  async stop(timeoutMs = Number.POSITIVE_INFINITY): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#round;
    this.#queue.clear();
    await this.#release([...this.#inHand].filter((job) => !this.#running.has(job)));

    const grace = Math.min(ABORT_GRACE_MS, timeoutMs / 2);
    const idle = this.#queue.onIdle().then(() => true);
    const waitUntil = (ms: number) => sleep(Math.max(0, ms), false, { ref: false });
    if (!(await Promise.race([idle, waitUntil(deadline - grace - performance.now())]))) {
      this.#abort.abort(new Error(`${this.#options.name} worker stopping`));
      await Promise.race([idle, waitUntil(deadline - performance.now())]);
    }
    await this.#release([...this.#inHand]);
  }

  async #release(jobs: Job[]): Promise<void> {
    const { logger, name } = this.#options;
    if (jobs.length === 0) return;
    for (const job of jobs) this.#inHand.delete(job);
    try {
      await this.#options.release(jobs);
      logger.info({ loop: name, jobs: jobs.length }, 'released unfinished jobs');
    } catch (error) {
      // Their leases lapse on their own; another instance takes them up then.
      logger.error({ err: error, loop: name }, 'could not release unfinished jobs');
    }
  }
}
