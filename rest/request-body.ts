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
