import { z } from 'zod';
import { exportOutput } from '../../domain/exports/export-output.ts';
import * as deckExports from '../../domain/exports/exports.ts';
import { EXPORT_FORMATS } from '../../entities/ExportJob.ts';
import { authedProcedure } from '../trpc.ts';

/** Queues an export of the deck (202, `Location: /api/exports/{id}`): a worker renders it. */
export const createExport = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'POST',
      path: '/decks/{deckId}/exports',
      tags: ['exports'],
      summary: 'Export the deck as PowerPoint, PDF or a narrated video',
      description:
        'Queues an export of the deck as it will be when its work starts: `pptx` (editable, narration as speaker notes and audio), `pdf` (searchable, bookmarked) or `mp4` (1920×1080 H.264 + AAC, each slide for its narration, chapters, captions unless `captions: false`). FAQs are included unless `includeFaqs: false`. Follow it with `GET /exports/{exportId}` (the `Location`), the `exports.onProgress` subscription or the events `export.completed` and `export.failed`. A deck of more than 200 slides is a 400. At most EXPORTS_PER_ORGANIZATION of an organization render at once; the others wait (`pending`). Counts against the heavy limit.',
    },
    heavy: true,
    successStatus: 202,
    location: '/exports/{id}',
  })
  .input(
    z.strictObject({
      deckId: z.uuid(),
      format: z.enum(EXPORT_FORMATS),
      includeFaqs: z
        .boolean()
        .default(true)
        .meta({ description: 'The FAQs after the slides (default true)' }),
      captions: z
        .boolean()
        .default(true)
        .meta({ description: 'mp4: a caption track and a WebVTT file beside the video (default true)' }),
    }),
  )
  .output(exportOutput)
  .mutation(({ ctx, input: { deckId, ...request } }) => deckExports.createExport(ctx, deckId, request));
