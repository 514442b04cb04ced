import type { MikroORM } from '@mikro-orm/postgresql';
import PQueue from 'p-queue';
import type { Services } from '../../routers/context.ts';
import { attemptDelivery, claimDueDeliveries, finishDelivery } from './delivery-worker.ts';
import { dispatchEvents } from './dispatcher.ts';
import { createWebhookAgent } from './webhook-sender.ts';

/**
 * The background loop of one instance: dispatch new events into deliveries, claim due
 * deliveries and send them, at most `concurrency` at a time (p-queue). It polls, and is
 * nudged after every commit that wrote events, so deliveries leave within milliseconds
 * while other instances still pick up work by polling.
 */
export class NotificationRunner {
  readonly #orm: MikroORM;
  readonly #services: Services;
  readonly #queue: PQueue;
  readonly #agent;
  #timer: NodeJS.Timeout | undefined;
  #tick: Promise<void> | undefined;
  #again = false;
  #stopped = true;

  constructor(orm: MikroORM, services: Services) {
    this.#orm = orm;
    this.#services = services;
    this.#queue = new PQueue({ concurrency: services.config.notifications.concurrency });
    this.#agent = createWebhookAgent(services.config.notifications.allowPrivateNetworks);
  }

  start(): void {
    this.#stopped = false;
    // Commits that wrote events (or changed deliveries) wake the loop at once.
    this.#orm.em.getEventManager().registerSubscriber({
      afterFlush: () => this.nudge(),
      afterTransactionCommit: () => this.nudge(),
    });
    this.nudge();
  }

  /** Run a round soon; rounds never overlap, a nudge during one makes another follow it. */
  nudge(): void {
    if (this.#stopped) return;
    if (this.#tick) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#tick = this.#round().finally(() => {
      this.#tick = undefined;
      if (this.#stopped) return;
      const delay = this.#again ? 0 : this.#services.config.notifications.pollIntervalMs;
      this.#again = false;
      this.#timer = setTimeout(() => this.nudge(), delay);
    });
  }

  async #round(): Promise<void> {
    const { logger, config } = this.#services;
    try {
      const em = this.#orm.em.fork();
      while ((await dispatchEvents(em)) > 0 && !this.#stopped) {}
      const room = config.notifications.concurrency * 2 - this.#queue.size - this.#queue.pending;
      if (room <= 0 || this.#stopped) return;
      const leaseSeconds = Math.ceil(config.notifications.webhookTimeoutMs / 1000) + 50;
      const jobs = await claimDueDeliveries(em, room, leaseSeconds);
      for (const job of jobs) {
        this.#queue.add(async () => {
          const outcome = await attemptDelivery(job, this.#services, this.#agent);
          await finishDelivery(
            this.#orm.em.fork(),
            job,
            outcome,
            config.notifications.retryScheduleSeconds,
          ).catch((error: unknown) =>
            logger.error({ err: error, deliveryId: job.deliveryId }, 'could not record a delivery'),
          );
          this.nudge();
        });
      }
      if (jobs.length === room) this.#again = true;
    } catch (error) {
      logger.error({ err: error }, 'notification round failed');
    }
  }

  /** Stops claiming, lets deliveries in flight finish, and closes connections. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#tick;
    await this.#queue.onIdle();
    await this.#agent.close();
  }
}
