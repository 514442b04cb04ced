import type { Context as KoaContext } from 'koa';
import getRawBody from 'raw-body';
import type { Auth } from '../domain/context.ts';
import { badRequest, payloadTooLarge } from '../domain/errors.ts';
import type { UploadBudget } from './upload-budget.ts';
import { UploadIntake } from './upload-intake.ts';

/**
 * The most a body may be that the service reads for a caller who is not signed in: sign-in's
 * (an e-mail and a password), and any /trpc request without a caller (it is read before the
 * procedure refuses it). Anyone can send these, so they are kept far below JSON_BODY_LIMIT_BYTES.
 */
export const PUBLIC_BODY_LIMIT_BYTES = 16 * 1024;

/** How one JSON body is read. */
export interface BodyLimits {
  limitBytes: number;
  /** Cut off with a 408 when no byte has arrived for this long (UPLOAD_IDLE_TIMEOUT_MS). */
  idleTimeoutMs: number;
  /**
   * A signed-in caller's body is charged to its shares of the upload memory budget while it is
   * read (the time the caller controls); an anonymous caller's (null) is not: it is small.
   */
  charge: { budget: UploadBudget; caller: Auth } | null;
}

/** True when the request carries a body at all (a length above 0, or chunked). */
export function hasBody(ctx: KoaContext): boolean {
  const length = ctx.get('content-length');
  return (length !== '' && Number(length) > 0) || ctx.get('transfer-encoding') !== '';
}

/**
 * The body's bytes, never buffered whole past the cap: a declared length past `limitBytes` is
 * a 413 before a byte is read, and so is the first byte past it; a body that stops arriving is a
 * 408; a charge its account refuses is a 429 or 503 (`UploadIntake`). Each of these closes the
 * connection, so that the rest of the body is not read (nor drained to keep the connection).
 */
export async function readRawBody(ctx: KoaContext, limits: BodyLimits): Promise<Buffer> {
  const { charge } = limits;
  const account = charge
    ? charge.budget.open({ organizationId: charge.caller.organizationId, callerId: charge.caller.actor.id })
    : null;
  let intake: UploadIntake;
  try {
    intake = new UploadIntake(ctx.req, account, {
      largestBody: limits.limitBytes,
      idleTimeoutMs: limits.idleTimeoutMs,
    });
  } catch (refusal) {
    account?.release();
    ctx.set('Connection', 'close');
    throw refusal;
  }
  try {
    const reading = getRawBody(ctx.req, {
      limit: limits.limitBytes,
      length: ctx.get('content-length') || undefined,
    });
    // Settles after a cut-off too (when the connection closes); the cut-off answers then.
    reading.catch(() => {});
    return await Promise.race([reading, intake.cutOff]);
  } catch (error) {
    if (error === intake.refusal) {
      ctx.set('Connection', 'close');
      throw error;
    }
    if ((error as { type?: string }).type === 'entity.too.large') {
      ctx.set('Connection', 'close');
      throw payloadTooLarge(`The request body is larger than ${limits.limitBytes} bytes`);
    }
    throw badRequest('The request body could not be read');
  } finally {
    intake.stop();
    account?.release();
  }
}
