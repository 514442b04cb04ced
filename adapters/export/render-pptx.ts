import { ExportFailed, type RenderedExport, type RenderRequest } from '../../domain/ports/deck-exporter.ts';

/** The deck as PPTX (work in progress: filled in by the deck-export work, issue 39). */
export async function renderPptx(_request: RenderRequest): Promise<RenderedExport> {
  throw new ExportFailed('PPTX export is not built yet');
}
