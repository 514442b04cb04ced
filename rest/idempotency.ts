import type { Context as KoaContext } from 'koa';
import { callerKeyOf } from '../domain/auth/access.ts';
import type { Auth } from '../domain/context.ts';
import { invalidField } from '../domain/errors.ts';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  type IdempotentRequest,
  releaseIdempotencyKey,
  type StoredAnswer,
} from '../domain/idempotency/idempotency-keys.ts';
import type { SecretBox } from '../domain/ports/secret-box.ts';
import type { SessionControl } from '../routers/context.ts';
import type { RequestContext as Context } from './edge.ts';
import { problemFromError, sendProblem } from './problem.ts';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** 1–255 printable ASCII characters (0x20–0x7E): one character class, linear. */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;
/** The headers of an answer a replay must repeat. */
const KEPT_HEADERS = ['content-type', 'location', 'retry-after'];

/**
 * A request's Idempotency-Key header, checked before anything is read or written: a 400 with an
 * issue on the header when it is not 1–255 printable ASCII characters.
 */
export function checkedIdempotencyKey(raw: string | string[]): string {
  // Node joins a repeated header with ", ": that joined value is judged like any other.
  if (typeof raw !== 'string' || !VALID_KEY.test(raw)) {
    throw invalidField(
      ['headers', IDEMPOTENCY_HEADER],
      'must be 1 to 255 printable ASCII characters (0x20 to 0x7E), sent once',
    );
  }
  return raw;
}

/**
 * Runs a POST under its Idempotency-Key (api.md, "Idempotent retries"), for a caller (the
 * dispatcher runs a request without a key or a caller directly, at no database cost): the key is
 * claimed first; a completed earlier request is replayed instead (same status,
 * body and headers, plus `Idempotent-Replayed: true`); a 2xx or 4xx answer is kept for 24 h,
 * a 5xx or a 429 releases the key so that a retry runs again (a 429 says "retry after", and
 * keeping it would answer that retry with the same 429 for a day).
 */
export async function runIdempotently(
  ctx: KoaContext,
  context: Context & { auth: Auth },
  { key, sessionBound }: { key: string; sessionBound: boolean },
  /** The input's parts to fingerprint (services.bodyFingerprint), computed only with a key. */
  bodyParts: () => (string | Uint8Array)[],
  run: () => Promise<void>,
): Promise<void> {
  const { em, services } = context;
  const { idempotency } = context.edge.settings;
  const request: IdempotentRequest = {
    callerKey: storeCallerKey(context.auth, context.session, sessionBound),
    key,
    method: ctx.method,
    path: ctx.path,
    bodyHash: context.edge.bodyFingerprint(...bodyParts()),
  };
  const claim = await claimIdempotencyKey(em, request, idempotency);
  const sealContext = `idempotency_key:${request.callerKey}:${request.key}`;
  if (claim.kind === 'replay') {
    for (const [name, value] of Object.entries(claim.answer.headers)) ctx.set(name, value);
    ctx.set('Idempotent-Replayed', 'true');
    ctx.status = claim.answer.status;
    ctx.body = openedBody(claim.answer.body, services.secretBox, sealContext);
    return;
  }
  try {
    await run();
    // Koa would write the same bytes: JSON.stringify of the body object.
    ctx.body = typeof ctx.body === 'string' ? ctx.body : JSON.stringify(ctx.body);
    ctx.type = 'application/json; charset=utf-8';
  } catch (error) {
    const shaped = problemFromError(error);
    if (shaped.problem.status >= 500 || shaped.problem.status === 429) {
      await releaseIdempotencyKey(em, request, claim.token).catch((releaseError: unknown) =>
        ctx.state.logger?.error({ err: releaseError }, 'releasing an idempotency key failed'),
      );
      throw error;
    }
    // A 4xx is an answer like any other: kept, and answered here exactly as it was kept.
    sendProblem(ctx, shaped.problem, shaped.retryAfterSeconds);
  }
  const answer: StoredAnswer = {
    status: ctx.status,
    body: storableBody(ctx.body as string, services.secretBox, sealContext),
    headers: keptHeaders(ctx),
  };
  try {
    await completeIdempotencyKey(em, request, claim.token, answer, idempotency.ttlSeconds);
  } catch (error) {
    // The work is done and its answer is ready: give it. The claim stays running and is taken
    // over after IDEMPOTENCY_TAKEOVER_SECONDS (docs/decisions/014-idempotency-keys.md).
    ctx.state.logger?.error({ err: error }, 'keeping an idempotent answer failed');
  }
}

/**
 * Whose keys these are: the caller's (api.md: per user or API key), so a user's retry from
 * another tab or device replays. A session-bound procedure (sign-out, password change) acts on
 * the session that sends it, and another session of the same user asking the same must be
 * answered by running it: its keys are the session's (the SHA-256 of its token, as the session
 * table keeps it; never the token).
 */
function storeCallerKey(auth: Auth, session: SessionControl, sessionBound: boolean): string {
  const caller = callerKeyOf(auth);
  const tokenHash = sessionBound ? session.tokenHash : null;
  return tokenHash ? `${caller}:session:${tokenHash}` : caller;
}

/** Marks a kept body stored sealed: no JSON answer starts with it. */
const SEALED = 'sealed:';

/**
 * An answer that carries a secret (a webhook's signing secret, an API key) is kept sealed
 * (AES-256-GCM, `services.secretBox`, bound to this caller and key), never in clear: a replay gives
 * the caller who lost the answer the same secret again, as Stripe does, while a copy of the
 * table reveals nothing. Other answers are kept as they are.
 */
function storableBody(body: string, box: SecretBox, context: string): string {
  if (!body.includes('"secret"')) return body;
  const value = JSON.parse(body) as unknown;
  if (typeof value !== 'object' || value === null || !('secret' in value)) return body;
  return `${SEALED}${box.seal(body, context)}`;
}

function openedBody(stored: string, box: SecretBox, context: string): string {
  return stored.startsWith(SEALED) ? box.open(stored.slice(SEALED.length), context) : stored;
}

function keptHeaders(ctx: KoaContext): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = ctx.response.get(name);
    if (value) headers[name] = value;
  }
  return headers;
}
