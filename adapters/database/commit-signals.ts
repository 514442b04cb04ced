import pg from 'pg';
import type { CommitSignals } from '../../domain/ports/commit-signals.ts';
import type { Logger } from '../../domain/ports/logger.ts';

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5000;

/**
 * LISTEN on one connection of its own (outside the pool: a pooled connection would be handed to
 * requests). A lost connection is opened again with backoff, and `onGap` tells the reader to read,
 * since notifications sent meanwhile are lost.
 */
export function createCommitSignals(url: string, logger: Logger, connectTimeoutMs: number): CommitSignals {
  let client: pg.Client | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;

  async function connect(channels: string[], handlers: Parameters<CommitSignals['start']>[1]) {
    const connection = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
    client = connection;
    const lost = (error?: Error) => {
      if (client !== connection || closed) return;
      client = undefined;
      connection.removeAllListeners();
      connection.on('error', () => {});
      connection.end().catch(() => {});
      failures += 1;
      const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** Math.min(failures, 10));
      logger.warn({ err: error, retryInMs: delay }, 'event notifications lost; reconnecting');
      timer = setTimeout(() => {
        connect(channels, handlers).then(
          () => handlers.onGap(),
          () => {},
        );
      }, delay);
    };
    connection.on('error', lost);
    connection.on('end', () => lost());
    connection.on('notification', (message) => handlers.onSignal(message.channel, message.payload ?? ''));
    try {
      await connection.connect();
      for (const channel of channels) await connection.query(`listen "${channel.replaceAll('"', '')}"`);
      failures = 0;
    } catch (error) {
      lost(error as Error);
      throw error;
    }
  }

  return {
    start: (channels, handlers) => connect(channels, handlers),
    async close() {
      closed = true;
      clearTimeout(timer);
      const connection = client;
      client = undefined;
      await connection?.end().catch(() => {});
    },
  };
}
