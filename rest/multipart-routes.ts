import multer from '@koa/multer';
import type Router from '@koa/router';
import { TRPCError } from '@trpc/server';
import type { Context as KoaContext } from 'koa';
import { InMemoryFile } from '../domain/uploaded-file.ts';
import { createCaller } from '../routers/app-router.ts';
import type { Context } from '../routers/context.ts';
import { SIGN_IN_FIRST } from '../routers/trpc.ts';
import type { AppConfig } from '../server/config.ts';
import { problem, problemFromTrpcError, sendProblem } from './problem.ts';
import type { RestProcedure } from './procedures.ts';

/** Room for the multipart framing and the few small fields around the file. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;
/** How long a client refused for want of memory is asked to wait. */
const BUSY_RETRY_AFTER_SECONDS = 5;

/**
 * Multipart upload routes (images, contract import): @koa/multer reads the one part
 * `file`, stopping at the route's size limit while the bytes stream in (413), and the
 * route calls the same procedure a tRPC caller would, with the file as a `File` over the
 * bytes read (not a copy of them).
 *
 * Memory: before a byte is read, the request reserves what it may hold (its Content-Length,
 * at most the route's limit and the framing) from the service's upload budget, and keeps it
 * until its answer is ready; when the budget is spent the answer is 503 with `Retry-After`.
 */
export function registerMultipartRoute(
  router: Router,
  procedure: RestProcedure,
  options: { config: AppConfig; createContext: (ctx: KoaContext) => Promise<Context> },
): void {
  const limit = options.config.uploads[procedure.multipartLimit!];
  const multerOptions = {
    storage: multer.memoryStorage(),
    // File names are UTF-8 (browsers send them so); busboy's default reads them as latin1.
    // (multer 2 passes this to busboy; its type definitions do not list it yet.)
    defParamCharset: 'utf8',
    limits: { fileSize: limit, files: 1, fields: 20, parts: 25, fieldSize: 1024, fieldNameSize: 100 },
  };
  const upload = multer(multerOptions).single('file');
  const largestBody = limit + MULTIPART_OVERHEAD_BYTES;
  const koaPath = procedure.route.path.replace(/\{(\w+)\}/g, ':$1');

  router.register(koaPath, [procedure.route.method], async (ctx) => {
    // Who is asking comes first: an anonymous upload is refused before a byte of it is read.
    const context = await options.createContext(ctx);
    if (!context.auth) return sendProblem(ctx, problem(401, SIGN_IN_FIRST));
    if (!ctx.is('multipart/form-data')) {
      return sendProblem(ctx, problem(415, 'Send the file as multipart/form-data, in a part named file'));
    }
    const declared = Number(ctx.get('content-length'));
    const release = context.services.uploadBudget.tryReserve(
      Number.isSafeInteger(declared) && declared > 0 ? Math.min(declared, largestBody) : largestBody,
    );
    if (!release) {
      // Not a byte of the body was read: close rather than drain it.
      ctx.set('Connection', 'close');
      return sendProblem(
        ctx,
        problem(503, 'Too many uploads are in progress; try again shortly'),
        BUSY_RETRY_AFTER_SECONDS,
      );
    }
    try {
      await handleUpload(ctx, context);
    } finally {
      release();
    }
  });

  async function handleUpload(ctx: KoaContext, context: Context): Promise<void> {
    try {
      await upload(ctx, async () => {});
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'LIMIT_FILE_SIZE') {
        // Stop reading the rest of an oversized upload: answer and close the connection.
        ctx.set('Connection', 'close');
        return sendProblem(ctx, problem(413, `The file is larger than ${limit} bytes`));
      }
      const detail =
        code === 'LIMIT_UNEXPECTED_FILE'
          ? 'Send exactly one file, in a part named file'
          : 'The multipart body could not be read';
      return sendProblem(ctx, problem(400, detail, [{ path: ['file'], message: detail }]));
    }
    const part = (ctx as KoaContext & { file?: { buffer: Buffer; originalname: string; mimetype: string } })
      .file;
    const file = part ? new InMemoryFile(part.buffer, part.originalname, { type: part.mimetype }) : undefined;
    try {
      const caller = createCaller(context) as unknown as Record<string, any>;
      const call = procedure.path.split('.').reduce((target, name) => target[name], caller) as (
        input: unknown,
      ) => unknown;
      ctx.body = await call({ file });
      ctx.status = procedure.successStatus;
    } catch (error) {
      if (!(error instanceof TRPCError)) throw error;
      const shaped = problemFromTrpcError(error);
      if (shaped.unexpected) ctx.state.logger?.error({ err: error.cause ?? error }, 'procedure failed');
      sendProblem(ctx, shaped.problem, shaped.retryAfterSeconds);
    }
  }
}
