import Router from '@koa/router';
import type { Context as KoaContext } from 'koa';
import type { Context } from '../routers/context.ts';
import { SIGN_IN_FIRST } from '../routers/trpc.ts';
import { voicePreview } from '../routers/voices/voice-preview.ts';
import { problem, sendProblem } from './problem.ts';

/** GET /api/voices/{voiceId}/preview: a short MP3 sample of a local voice (the list's preview_url). */
export function createVoicePreviewRouter(createContext: (ctx: KoaContext) => Promise<Context>): Router {
  const router = new Router();
  router.get('/api/voices/:voiceId/preview', async (ctx) => {
    const context = await createContext(ctx);
    if (!context.auth) return sendProblem(ctx, problem(401, SIGN_IN_FIRST));
    let audio: Buffer | null;
    try {
      audio = await voicePreview(context.services, ctx.params.voiceId!);
    } catch (error) {
      ctx.state.logger?.warn({ reason: (error as Error).message }, 'voice preview failed');
      return sendProblem(ctx, problem(503, 'The voice could not be previewed right now'), 5);
    }
    if (!audio) return sendProblem(ctx, problem(404, `Voice ${ctx.params.voiceId} is not in the voice list`));
    ctx.set('Cache-Control', 'private, max-age=86400');
    ctx.type = 'audio/mpeg';
    ctx.body = audio;
  });
  return router;
}
