import Router from '@koa/router';
import { byteSize } from '../domain/byte-size.ts';
import { isSafeKey, type LocalObjectAccess } from '../domain/ports/object-storage.ts';
import { readQuery } from './admission.ts';
import { problem, sendProblem } from './problem.ts';

/**
 * The addresses the local storage driver signs: PUT uploads and GET downloads at
 * `/storage/<key>`. They need no session (the signature is the permission) and check it
 * first: expired or tampered → 403. An upload address works once: a PUT to an object that
 * exists is a 409. Downloads are sandboxed: an uploaded SVG cannot run script on this origin.
 */
export function createLocalStorageRouter(storage: LocalObjectAccess): Router {
  const router = new Router();
  const query = (ctx: { querystring: string }) =>
    Object.fromEntries(
      Object.entries(readQuery(ctx.querystring)).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]),
    );

  // Before the routes: a path that is no object key (bad percent-encoding, `..`, NUL, too
  // long) is a 400, whatever the signature says.
  router.use('/storage/{*key}', async (ctx, next) => {
    const key = keyOf(ctx.path);
    if (key === null) return sendProblem(ctx, problem(400, 'The path does not name a valid object key'));
    ctx.state.objectKey = key;
    await next();
  });

  router.put('/storage/{*key}', async (ctx) => {
    const key = ctx.state.objectKey as string;
    const signed = storage.verify('PUT', key, query(ctx), ctx.get('content-type'));
    if (!signed.ok) return sendProblem(ctx, problem(403, signed.reason!));
    const maxBytes = signed.maxBytes ?? 0;
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > maxBytes)
      return sendProblem(ctx, problem(413, `The upload is larger than ${byteSize(maxBytes)}`));
    try {
      const size = await storage.write(key, ctx.req, ctx.get('content-type').split(';')[0]!.trim(), maxBytes);
      ctx.status = 200;
      ctx.body = { key, size };
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'TOO_LARGE') {
        return sendProblem(ctx, problem(413, `The upload is larger than ${byteSize(maxBytes)}`));
      }
      if (code === 'EXISTS') {
        return sendProblem(ctx, problem(409, 'This address has been used: the object is already uploaded'));
      }
      throw error;
    }
  });

  router.get('/storage/{*key}', async (ctx) => {
    const key = ctx.state.objectKey as string;
    const signed = storage.verify('GET', key, query(ctx));
    if (!signed.ok) return sendProblem(ctx, problem(403, signed.reason!));
    const object = await storage.read(key);
    if (!object) return sendProblem(ctx, problem(404, 'No such object'));
    ctx.set({
      'Content-Security-Policy': 'sandbox',
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'private, max-age=300',
    });
    ctx.type = object.contentType;
    ctx.length = object.size;
    ctx.body = object.stream;
  });
  return router;
}

/** The object key a `/storage/…` path names, or null when it names none (see `isSafeKey`). */
function keyOf(path: string): string | null {
  let key: string;
  try {
    key = decodeURIComponent(path.replace(/^\/storage\//, ''));
  } catch {
    return null;
  }
  return isSafeKey(key) ? key : null;
}
