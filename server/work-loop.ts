import PQueue from 'p-queue';
import type { Logger } from './logger.ts';

/**
 * A background worker of one instance: each round `prepare`s, `claim`s as many jobs as there
 * is room for, and `run`s them at most `concurrency` at a time (p-queue). Rounds never
 * overlap; `nudge()` starts one at once (commits that create work call it), otherwise the
 * loop polls. Claims are made in PostgreSQL, so any number of instances share the work.
 */
export interface WorkLoopOptions<Job> {
  name: string;
  pollIntervalMs: number;
  concurrency: number;
  logger: Logger;
  prepare?: () => Promise<void>;
  claim: (room: number) => Promise<Job[]>;
  run: (job: Job) => Promise<void>;
}

export class WorkLoop<Job> {
  readonly #options: WorkLoopOptions<Job>;
  readonly #queue: PQueue;
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<void> | undefined;
  #again = false;
  #stopped = true;

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
    clearTimeout(this.#timer);
    this.#round = this.#runRound().finally(() => {
      this.#round = undefined;
      if (this.#stopped) return;
      const delay = this.#again ? 0 : this.#options.pollIntervalMs;
      this.#again = false;
      this.#timer = setTimeout(() => this.nudge(), delay);
    });
  }

  async #runRound(): Promise<void> {
    const { logger, name, concurrency } = this.#options;
    try {
      await this.#options.prepare?.();
      const room = concurrency * 2 - this.#queue.size - this.#queue.pending;
      if (room <= 0 || this.#stopped) return;
      const jobs = await this.#options.claim(room);
      for (const job of jobs) {
        this.#queue.add(async () => {
          await this.#options
            .run(job)
            .catch((error: unknown) => logger.error({ err: error, loop: name }, 'job failed'));
          this.nudge();
        });
      }
      if (jobs.length === room) this.#again = true;
    } catch (error) {
      logger.error({ err: error, loop: name }, 'work round failed');
    }
  }

  /** Stops claiming and waits for the jobs in hand to finish. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#round;
    await this.#queue.onIdle();
  }
}
