import { z } from 'zod';
import { missing, unavailable } from '../domain/errors.ts';
import * as voices from '../domain/voices/voices.ts';
import type { HandWrittenRoute } from './route.ts';

/** GET /api/voices/{voiceId}/preview: a short MP3 sample of a local voice (the list's preview_url). */
/** Declared without `forms`: the route table reads them from `parameters`. */
export const voicePreviewRoute: Omit<HandWrittenRoute, 'forms'> = {
  kind: 'hand-written',
  route: {
    method: 'GET',
    path: '/voices/{voiceId}/preview',
    operationId: 'voices-previewVoice',
    tags: ['voices'],
    summary: 'A short spoken sample of a voice (MP3)',
    description:
      'The address each voice of `GET /voices/list` gives as `preview_url`: a sentence spoken by that voice, ' +
      'as MP3, cached by the client for a day. An unknown voice_id → 404; the speech engine failing → 503.',
    errorResponses: [404, 503],
  },
  access: 'read',
  successStatus: 200,
  pathParameters: ['voiceId'],
  parameters: {
    voiceId: z
      .string()
      .min(1)
      .max(200)
      // What is left of a segment that is not percent-encoded UTF-8 (the router keeps it raw).
      .regex(/^[^%]*$/, 'must be a voice_id of the voice list')
      .meta({ description: 'A voice_id of the voice list' }),
  },
  response: { contentType: 'audio/mpeg', description: 'The sample, as MP3' },
  async handle(ctx, context, { voiceId }) {
    let audio: Buffer | null;
    try {
      audio = await voices.previewVoice(context, voiceId as string);
    } catch (error) {
      ctx.state.logger?.warn({ reason: (error as Error).message }, 'voice preview failed');
      throw unavailable('The voice could not be previewed right now', 5);
    }
    if (!audio) throw missing(`Voice ${voiceId} is not in the voice list`);
    ctx.set('Cache-Control', 'private, max-age=86400');
    ctx.type = 'audio/mpeg';
    ctx.body = audio;
  },
};
