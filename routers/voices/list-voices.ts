import { voiceListOutput } from '../../domain/voices/voice-output.ts';
import * as voices from '../../domain/voices/voices.ts';
import { noInput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const listVoices = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/voices/list',
      tags: ['voices'],
      summary: 'Voices suited to sales presentations, with preview addresses',
      description:
        'The voices narration can use (`voice_id` for a deck or an intro), each with a `preview_url` that plays a sample. 503 when the speech provider cannot be reached.',
      errorResponses: [503],
    },
  })
  .input(noInput)
  .output(voiceListOutput)
  .query(({ ctx }) => voices.listVoices(ctx));
