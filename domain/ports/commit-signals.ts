/**
 * What PostgreSQL says at commit (LISTEN/NOTIFY): the wake-up of the live event stream. A signal
 * may be late or lost (a dropped connection): `onGap` then says "read again", never "nothing happened".
 */
export interface CommitSignals {
  /** Listens on `channels`; resolves once listening (or rejects when the database cannot be reached). */
  start(
    channels: string[],
    handlers: {
      onSignal(channel: string, payload: string): void;
      /** The connection was lost and is back: notifications of the meantime are gone. */
      onGap(): void;
    },
  ): Promise<void>;
  close(): Promise<void>;
}
