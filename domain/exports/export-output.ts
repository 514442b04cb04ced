import { z } from 'zod';
import { EXPORT_FORMATS, EXPORT_STATUSES, type ExportJob } from '../../entities/ExportJob.ts';
import { safeFilename } from '../object-keys.ts';
import type { Services } from '../services.ts';

/** The WebVTT captions beside an mp4 (decision 071). */
export const CAPTIONS_CONTENT_TYPE = 'text/vtt';

/** A stored file of an export, as the events carry it: everything but its signed address. */
export const storedExportFile = z.object({
  expiresIn: z
    .int()
    .meta({ description: 'Seconds the `url` of a GET stays valid (DOWNLOAD_URL_EXPIRES_SECONDS)' }),
  sizeBytes: z.int(),
  sha256: z.string().meta({ description: 'SHA-256 of the file, hex' }),
  contentType: z.string(),
  filename: z.string().meta({ description: 'The file’s name, from the deck’s' }),
});

/** …and as the routes answer it: with a short-lived signed download address, fresh on each answer. */
export const exportFile = storedExportFile
  .extend({
    url: z.string().meta({ description: 'A signed, short-lived download address (a fresh one on each GET)' }),
  })
  .meta({ id: 'ExportFile' });

/** A deck export as every route answers it (api.md, "Deck export"). */
export const exportOutput = z
  .object({
    id: z.uuid(),
    deckId: z.uuid(),
    format: z.enum(EXPORT_FORMATS),
    status: z.enum(EXPORT_STATUSES),
    progress: z.object({ done: z.int(), total: z.int() }).meta({
      description: 'Pages rendered (intro, slides, FAQs, closing) of how many; 0 of 0 before the work starts',
    }),
    warnings: z.array(z.string()).meta({
      description:
        'What could not be rendered and was left out or replaced (an image that does not decode, …)',
    }),
    error: z.string().nullable().meta({ description: 'Why the export failed; null unless `failed`' }),
    file: exportFile.nullable().meta({
      description: 'The finished file; null until completed, and after EXPORT_RETENTION_DAYS or a DELETE',
    }),
    captionsFile: exportFile.nullable().meta({
      description:
        'mp4 with captions: the WebVTT file beside the video (the same shape as `file`); null otherwise (decision 071)',
    }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    expiresAt: z.iso.datetime().meta({
      description:
        'When the file is deleted: EXPORT_RETENTION_DAYS after the export completed (after it was asked, until then)',
    }),
  })
  .meta({ id: 'Export' });

export type ExportOutput = z.infer<typeof exportOutput>;

/** The export as its events carry it: its files without their signed addresses. */
export const exportEventOutput = exportOutput.extend({
  file: storedExportFile.nullable(),
  captionsFile: storedExportFile.nullable(),
});
export type ExportEventOutput = z.infer<typeof exportEventOutput>;

/** The name of a deck's exported file: the deck's name made safe, with the format's extension. */
export function exportFilename(deckName: string, extension: string): string {
  let base = safeFilename(deckName).slice(0, 90);
  // Its own trailing dots off (a loop: an end-anchored pattern would be quadratic on a run of dots).
  while (base.endsWith('.')) base = base.slice(0, -1);
  return `${base || 'deck'}.${extension}`;
}

/** The captions file's name beside the video's. */
export function captionsFilename(videoName: string): string {
  const dot = videoName.lastIndexOf('.');
  return `${dot > 0 ? videoName.slice(0, dot) : videoName}.vtt`;
}

/** The export as its events carry it (no signed address). */
export function toExportEventOutput(job: ExportJob, services: Services): ExportEventOutput {
  const expiresIn = services.settings.storage.downloadUrlExpiresSeconds;
  const file =
    job.fileKey && job.fileSize != null && job.fileSha256 && job.fileContentType && job.fileName
      ? {
          expiresIn,
          sizeBytes: job.fileSize,
          sha256: job.fileSha256,
          contentType: job.fileContentType,
          filename: job.fileName,
        }
      : null;
  const captionsFile =
    file && job.captionsKey && job.captionsSize != null && job.captionsSha256
      ? {
          expiresIn,
          sizeBytes: job.captionsSize,
          sha256: job.captionsSha256,
          contentType: CAPTIONS_CONTENT_TYPE,
          filename: captionsFilename(file.filename),
        }
      : null;
  return {
    id: job.id,
    deckId: job.deck!.id,
    format: job.format,
    status: job.status,
    progress: { done: job.progressDone, total: job.progressTotal },
    warnings: job.warnings,
    error: job.error ?? null,
    file,
    captionsFile,
    createdAt: job.createdAt.toISOString(),
    updatedAt: job.updatedAt.toISOString(),
    expiresAt: job.expiresAt.toISOString(),
  };
}

/** The export as the routes answer it: each file with a freshly signed download address. */
export async function toExportOutput(job: ExportJob, services: Services): Promise<ExportOutput> {
  const stored = toExportEventOutput(job, services);
  const sign = (key: string, contentType: string) =>
    services.storage.signedDownloadUrl(key, services.settings.storage.downloadUrlExpiresSeconds, contentType);
  return {
    ...stored,
    file: stored.file && { ...stored.file, url: await sign(job.fileKey!, stored.file.contentType) },
    captionsFile: stored.captionsFile && {
      ...stored.captionsFile,
      url: await sign(job.captionsKey!, CAPTIONS_CONTENT_TYPE),
    },
  };
}
