import { ExportFailed, type RenderedExport, type RenderRequest } from '../../domain/ports/deck-exporter.ts';

/** The deck as PDF (work in progress: filled in by the deck-export work, issue 39). */
export async function renderPdf(_request: RenderRequest): Promise<RenderedExport> {
  throw new ExportFailed('PDF export is not built yet');
}
