import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Auth } from '../../domain/context.ts';
import { tooManyRequests } from '../../domain/errors.ts';
import { groupCommit } from '../../domain/group-commit.ts';
import { inOneTrip } from '../../domain/prepared-statements.ts';

/**
 * The open streams of every instance, counted in PostgreSQL (table `open_stream`; decision 063):
 * STREAMS_PER_ORGANIZATION and STREAMS_PER_CALLER hold across the instances behind the balancer.
 *
 * An open is one message of three statements, one implicit transaction: the organization's advisory
 * lock (so two opens of one organization, on any instances, count one after the other: a count then
 * an insert is no race), the deletion of its rows whose lease has lapsed, then the insert, only while
 * both counts are under their caps. Each instance renews the lease of the rows it holds in one
 * statement every third of STREAM_LEASE_SECONDS; an instance killed without a stop renews nothing,
 * and its rows stop counting when their lease lapses. So does a row whose delete failed at its
 * stream's close: it is held no more, so never renewed again.
 */
export interface LeaseSettings {
  streamsPerOrganization: number;
  streamsPerCaller: number;
  leaseMs: number;
}

/** The caller's key in the table (and in an instance's own count). */
export function callerKey(auth: Auth): string {
  return `${auth.actor.type}:${auth.actor.id}`;
}

export class StreamLeases {
  /** This instance's rows: new at each start. */
  readonly instanceId = randomUUID();
  readonly #em: () => EntityManager;
  readonly #settings: LeaseSettings;
  /**
   * The rows this instance holds (and those being inserted): the only ones it renews. A row whose
   * delete failed is not among them, so its lease lapses instead of being renewed until a restart.
   */
  readonly #held = new Set<string>();
  /** Releases sent and not yet answered: an open waits for them (a stream just closed counts no more). */
  readonly #releasing = new Set<Promise<void>>();
  readonly #deleteRows: (id: string) => Promise<void>;

  constructor(em: () => EntityManager, settings: LeaseSettings) {
    this.#em = em;
    this.#settings = settings;
    // Streams that close together (a client's reconnect, a revoked key's) go in one statement.
    this.#deleteRows = groupCommit<string>(async (ids) => {
      await inOneTrip(this.#em(), [['delete from open_stream where id in (?)', [ids]]]);
    }, 500);
  }

  /** Counts a new stream of `auth`'s caller; 429 past either cap. Answers the stream's row id. */
  async acquire(auth: Auth): Promise<string> {
    if (this.#releasing.size > 0) await Promise.allSettled([...this.#releasing]);
    const id = randomUUID();
    const organization = auth.organizationId;
    const caller = callerKey(auth);
    const { streamsPerOrganization, streamsPerCaller, leaseMs } = this.#settings;
    // Held from before the insert: a renewal sent meanwhile renews it, or leaves it its fresh lease.
    this.#held.add(id);
    let row: { organization: number; caller: number; opened: boolean } | undefined;
    try {
      [row] = await inOneTrip<{ organization: number; caller: number; opened: boolean }>(this.#em(), [
        ['select pg_advisory_xact_lock(hashtextextended(?, 0))', [`open_stream:${organization}`]],
        ['delete from open_stream where organization_id = ? and lease_until < now()', [organization]],
        [
          `with counted as (
             select count(*)::int as organization, (count(*) filter (where caller_key = ?))::int as caller
               from open_stream where organization_id = ?),
           opened as (
             insert into open_stream (id, organization_id, caller_key, instance_id, lease_until)
             select ?, ?, ?, ?, clock_timestamp() + ? * interval '1 millisecond' from counted
              where counted.organization < ? and counted.caller < ?
             returning id)
           select counted.organization, counted.caller, exists (select 1 from opened) as opened from counted`,
          [
            caller,
            organization,
            id,
            organization,
            caller,
            this.instanceId,
            leaseMs,
            streamsPerOrganization,
            streamsPerCaller,
          ],
        ],
      ]);
    } finally {
      // Refused or failed: not held (a row the failure left behind is never renewed, and lapses).
      if (!row?.opened) this.#held.delete(id);
    }
    if (row?.opened) return id;
    if (row && row.caller >= streamsPerCaller) {
      throw tooManyRequests(
        `At most ${streamsPerCaller} streams may be open at once per caller; close one first`,
        5,
      );
    }
    throw tooManyRequests(
      `At most ${streamsPerOrganization} streams may be open at once per organization, on all instances; close one first`,
      5,
    );
  }

  /**
   * A stream has ended: its row goes. Should the delete fail, the row is held no more all the same:
   * no renewal touches it again, and it stops counting within STREAM_LEASE_SECONDS.
   */
  release(id: string): void {
    this.#held.delete(id);
    const releasing: Promise<void> = this.#deleteRows(id)
      .catch(() => {})
      .finally(() => this.#releasing.delete(releasing));
    this.#releasing.add(releasing);
  }

  /**
   * Renews the lease of the rows this instance holds (not all of its rows: one whose delete failed
   * must lapse); answers the ids it found. A row not found (deleted after its lease lapsed while this
   * instance could not renew it) counts no more: its stream must end.
   */
  async renew(): Promise<Set<string>> {
    const held = [...this.#held];
    if (held.length === 0) return new Set();
    const rows = await inOneTrip<{ id: string }>(this.#em(), [
      [
        `update open_stream set lease_until = clock_timestamp() + ? * interval '1 millisecond'
          where instance_id = ? and id in (?) returning id`,
        [this.#settings.leaseMs, this.instanceId, held],
      ],
    ]);
    return new Set(rows.map((row) => row.id));
  }

  /** At a stop: every row of this instance goes. */
  async releaseAll(): Promise<void> {
    this.#held.clear();
    await Promise.allSettled([...this.#releasing]);
    await inOneTrip(this.#em(), [['delete from open_stream where instance_id = ?', [this.instanceId]]]);
  }
}
