import { ExportFailed, type RenderedExport, type RenderRequest } from '../../domain/ports/deck-exporter.ts';

/** The deck as MP4 (work in progress: filled in by the deck-export work, issue 39). */
export async function renderMp4(_request: RenderRequest): Promise<RenderedExport> {
  throw new ExportFailed('MP4 export is not built yet');
}
