import type { Context as KoaContext } from 'koa';
import getRawBody from 'raw-body';

export class ProblemError extends Error {
  readonly status: number;
  readonly expose = true;
  constructor(status: number, detail: string) {
    super(detail);
    this.status = status;
  }
}

/** True when the request carries a body at all (a length above 0, or chunked). */
export function hasBody(ctx: KoaContext): boolean {
  const length = ctx.get('content-length');
  return (length !== '' && Number(length) > 0) || ctx.get('transfer-encoding') !== '';
}

/**
 * Reads a JSON body with a size cap: 415 for another media type, 413 past the cap (the
 * stream is cut there, not buffered whole), 400 for malformed JSON. No body reads as `{}`,
 * so `curl -X POST` works on routes with nothing to send.
 */
export async function readJsonBody(ctx: KoaContext, limitBytes: number): Promise<unknown> {
  if (!hasBody(ctx)) return {};
  if (!ctx.is('application/json', '+json')) {
    const type = ctx.get('content-type');
    throw new ProblemError(
      415,
      type
        ? `Content-Type ${type} is not supported here; send application/json`
        : 'Send the body as application/json',
    );
  }
  let text: string;
  try {
    text = await getRawBody(ctx.req, {
      limit: limitBytes,
      encoding: 'utf8',
      length: ctx.get('content-length') || undefined,
    });
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large')
      throw new ProblemError(413, `The request body is larger than ${limitBytes} bytes`);
    throw new ProblemError(400, 'The request body could not be read');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ProblemError(400, 'The request body is not valid JSON');
  }
}

/** The body's bytes, cut off with a 413 as soon as it passes `limitBytes` (never buffered whole). */
export async function readRawBody(ctx: KoaContext, limitBytes: number): Promise<Buffer> {
  try {
    return await getRawBody(ctx.req, { limit: limitBytes, length: ctx.get('content-length') || undefined });
  } catch (error) {
    if ((error as { type?: string }).type === 'entity.too.large') {
      throw new ProblemError(413, `The request body is larger than ${limitBytes} bytes`);
    }
    throw new ProblemError(400, 'The request body could not be read');
  }
}
