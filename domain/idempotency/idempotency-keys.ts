import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../errors.ts';

/**
 * The idempotency store (api.md, "Idempotent retries"): one row per caller and key, claimed
 * by one atomic statement (`insert … on conflict do nothing`), never found-then-inserted, so
 * of any number of concurrent requests with one key exactly one runs.
 */

/** The request a key is used for: the same key may only ever be used for the same one. */
export interface IdempotentRequest {
  callerKey: string;
  key: string;
  method: string;
  path: string;
  bodyHash: string;
}

/** An answer as kept and replayed. */
export interface StoredAnswer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

export type Claim = { kind: 'run'; token: string } | { kind: 'replay'; answer: StoredAnswer };

export interface IdempotencyTimes {
  /** How long a completed answer is kept (24 h). */
  ttlSeconds: number;
  /** A claim still running after this is taken to belong to a request that died, and may be taken over. */
  abandonAfterSeconds: number;
}

interface Row {
  method: string;
  path: string;
  body_hash: string;
  state: 'running' | 'completed';
  response_status: number | null;
  response_body: string | null;
  response_headers: Record<string, string> | null;
  abandoned: boolean;
  expired: boolean;
}

export function idempotencyKeyReused(): DomainError {
  return new DomainError(
    'unprocessable',
    'This Idempotency-Key was used for another request (method, path or body); use a new key',
    { code: 'IDEMPOTENCY_KEY_REUSED' },
  );
}

export function idempotencyKeyInUse(): DomainError {
  return new DomainError(
    'conflict',
    'A request with this Idempotency-Key is still running; retry when it has finished',
    { code: 'IDEMPOTENCY_KEY_IN_USE', retryAfterSeconds: 1 },
  );
}

/**
 * Claims the key for this request, or answers what the earlier request with it says: its kept
 * answer (a replay), 422 when it was another request, 409 while it is still running. An
 * expired row, or a claim abandoned by a request that died, is taken over by one atomic update
 * that only one contender can win.
 */
export async function claimIdempotencyKey(
  em: EntityManager,
  request: IdempotentRequest,
  times: IdempotencyTimes,
): Promise<Claim> {
  const connection = em.getConnection();
  const token = randomUUID();
  const { callerKey, key, method, path, bodyHash } = request;
  // Twice at most: a row released (a 5xx) between the insert and the read is claimed again.
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const inserted: unknown[] = await connection.execute(
      `insert into idempotency_key (caller_key, key, method, path, body_hash, state, claim_token, claimed_at,
                                    created_at, expires_at)
       values (?, ?, ?, ?, ?, 'running', ?, now(), now(), now() + make_interval(secs => ?))
       on conflict (caller_key, key) do nothing
       returning 1`,
      [callerKey, key, method, path, bodyHash, token, times.ttlSeconds],
    );
    if (inserted.length > 0) return { kind: 'run', token };

    const [row]: Row[] = await connection.execute(
      `select method, path, body_hash, state, response_status, response_body, response_headers,
              ${ABANDONED} as abandoned,
              expires_at <= now() as expired
         from idempotency_key where caller_key = ? and key = ?`,
      [times.abandonAfterSeconds, callerKey, key],
    );
    if (!row) continue;
    if (row.expired) {
      // Past its 24 hours but not swept yet: as if it were gone.
      if (await takeOver(em, request, token, times, 'expired')) return { kind: 'run', token };
      continue;
    }
    if (row.method !== method || row.path !== path || row.body_hash !== bodyHash)
      throw idempotencyKeyReused();
    if (row.state === 'completed') {
      return {
        kind: 'replay',
        answer: {
          status: row.response_status!,
          body: row.response_body ?? '',
          headers: row.response_headers ?? {},
        },
      };
    }
    if (row.abandoned && (await takeOver(em, request, token, times, 'abandoned'))) {
      return { kind: 'run', token };
    }
    throw idempotencyKeyInUse();
  }
  throw idempotencyKeyInUse();
}

/** A running claim older than the takeover time (parameter: seconds): its request died. */
const ABANDONED = `state = 'running' and claimed_at <= now() - make_interval(secs => ?)`;

/**
 * One atomic update, guarded by the condition that allowed it (checked again under the row's
 * lock): of several contenders only one sees its row change.
 */
async function takeOver(
  em: EntityManager,
  request: IdempotentRequest,
  token: string,
  times: IdempotencyTimes,
  because: 'expired' | 'abandoned',
): Promise<boolean> {
  const [condition, conditionParams] =
    because === 'expired' ? ['expires_at <= now()', []] : [ABANDONED, [times.abandonAfterSeconds]];
  const updated: unknown[] = await em.getConnection().execute(
    `update idempotency_key
        set method = ?, path = ?, body_hash = ?, state = 'running', claim_token = ?, claimed_at = now(),
            response_status = null, response_body = null, response_headers = null,
            created_at = now(), expires_at = now() + make_interval(secs => ?)
      where caller_key = ? and key = ? and ${condition}
      returning 1`,
    [
      request.method,
      request.path,
      request.bodyHash,
      token,
      times.ttlSeconds,
      request.callerKey,
      request.key,
      ...conditionParams,
    ],
  );
  return updated.length > 0;
}

/** Keeps the first completed answer (2xx or 4xx) for `ttlSeconds` from now. */
export async function completeIdempotencyKey(
  em: EntityManager,
  request: IdempotentRequest,
  token: string,
  answer: StoredAnswer,
  ttlSeconds: number,
): Promise<void> {
  await em.getConnection().execute(
    `update idempotency_key
        set state = 'completed', response_status = ?, response_body = ?, response_headers = ?::jsonb,
            expires_at = now() + make_interval(secs => ?)
      where caller_key = ? and key = ? and claim_token = ?`,
    [
      answer.status,
      answer.body,
      JSON.stringify(answer.headers),
      ttlSeconds,
      request.callerKey,
      request.key,
      token,
    ],
  );
}

/** A 5xx is not kept: the row goes, so a retry runs again. Only the claim's own row is removed. */
export async function releaseIdempotencyKey(em: EntityManager, request: IdempotentRequest, token: string) {
  await em
    .getConnection()
    .execute(`delete from idempotency_key where caller_key = ? and key = ? and claim_token = ?`, [
      request.callerKey,
      request.key,
      token,
    ]);
}

/** Removes expired rows, a batch at a time (several instances may sweep at once: each row goes once). */
export async function sweepExpiredIdempotencyKeys(em: EntityManager, batchSize = 1000): Promise<number> {
  let removed = 0;
  for (;;) {
    const rows: unknown[] = await em.getConnection().execute(
      `delete from idempotency_key where ctid in (
         select ctid from idempotency_key where expires_at <= now() limit ? for update skip locked)
       returning 1`,
      [batchSize],
    );
    removed += rows.length;
    if (rows.length < batchSize) return removed;
  }
}
