import Router from '@koa/router';
import type { LocalObjectAccess } from '../server/storage/object-storage.ts';
import { problem, sendProblem } from './problem.ts';

/**
 * The addresses the local storage driver signs: PUT uploads and GET downloads at
 * `/storage/<key>`. They need no session (the signature is the permission) and check it
 * first: expired or tampered → 403. Downloads are sandboxed: an uploaded SVG cannot run
 * script on this origin.
 */
export function createLocalStorageRouter(storage: LocalObjectAccess): Router {
  const router = new Router();
  const keyOf = (path: string) => decodeURIComponent(path.replace(/^\/storage\//, ''));
  const query = (ctx: { query: Record<string, string | string[] | undefined> }) =>
    Object.fromEntries(Object.entries(ctx.query).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));

  router.put('/storage/{*key}', async (ctx) => {
    const key = keyOf(ctx.path);
    const signed = storage.verify('PUT', key, query(ctx), ctx.get('content-type'));
    if (!signed.ok) return sendProblem(ctx, problem(403, signed.reason!));
    const maxBytes = signed.maxBytes ?? 0;
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > maxBytes)
      return sendProblem(ctx, problem(413, `The upload is larger than ${maxBytes} bytes`));
    try {
      const size = await storage.write(key, ctx.req, ctx.get('content-type').split(';')[0]!.trim(), maxBytes);
      ctx.status = 200;
      ctx.body = { key, size };
    } catch (error) {
      if ((error as { code?: string }).code === 'TOO_LARGE') {
        return sendProblem(ctx, problem(413, `The upload is larger than ${maxBytes} bytes`));
      }
      throw error;
    }
  });

  router.get('/storage/{*key}', async (ctx) => {
    const key = keyOf(ctx.path);
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
