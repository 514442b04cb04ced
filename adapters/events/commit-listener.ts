import type { CommitSignals } from '../../domain/ports/commit-signals.ts';
import type { Logger } from '../../domain/ports/logger.ts';

/**
 * The notification channels, each sent by a trigger at the commit of the transaction that wrote
 * (PostgreSQL delivers a NOTIFY at commit, and none on rollback): on `event` (migration
 * `live_events`), whatever inserted the rows (the unit of work, a one-trip statement, psql), its
 * payload the writing transaction; on every change of a generation job, its deck; of an export
 * (migration `export_jobs`), the export.
 */
export const EVENT_CHANNEL = 'event_log';
export const GENERATION_CHANNEL = 'generation_job';
export const EXPORT_CHANNEL = 'export_job';
const CHANNELS = [EVENT_CHANNEL, GENERATION_CHANNEL, EXPORT_CHANNEL];

export interface CommitHandlers {
  onSignal(channel: string, payload: string): void;
  /** Notifications may have been lost (the connection was lost and is back): look again. */
  onGap(): void;
}

/**
 * The instance's one LISTEN connection (adapters/database/commit-signals.ts), shared by whoever
 * waits for commits: the live streams' reader (live-hub.ts) and the workers whose work is events
 * (app/app.ts). It listens from the first subscriber on; a database that cannot be reached now is
 * retried by the signals, and each subscriber's poll covers the meantime.
 */
export class CommitListener {
  readonly #signals: CommitSignals;
  readonly #logger: Logger;
  readonly #subscribers = new Set<CommitHandlers>();
  #listening: Promise<void> | null = null;

  constructor(signals: CommitSignals, logger: Logger) {
    this.#signals = signals;
    this.#logger = logger;
  }

  /** Calls `handlers` from now on; resolves once listening (or once the first attempt failed). */
  subscribe(handlers: CommitHandlers): Promise<void> {
    this.#subscribers.add(handlers);
    this.#listening ??= this.#signals
      .start(CHANNELS, {
        onSignal: (channel, payload) => {
          for (const subscriber of this.#subscribers) subscriber.onSignal(channel, payload);
        },
        onGap: () => {
          for (const subscriber of this.#subscribers) subscriber.onGap();
        },
      })
      .catch((error: unknown) => this.#logger.warn({ err: error }, 'commit notifications not listening yet'));
    return this.#listening;
  }

  async close(): Promise<void> {
    this.#subscribers.clear();
    await this.#signals.close();
  }
}
