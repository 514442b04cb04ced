// Runs in a worker thread of its own, one per export (adapters/export/deck-exporter.ts): the
// renderer of the export's format, fed the snapshot in `workerData`; progress and the outcome go
// back as messages, an `abort` message comes in when the export is canceled or the instance stops.
import { parentPort, workerData } from 'node:worker_threads';
import {
  ExportFailed,
  type ExportFormat,
  type RenderedExport,
  type RenderRequest,
} from '../../domain/ports/deck-exporter.ts';

/** What the thread is given: the request without its callbacks. */
export type WorkerRequest = Omit<RenderRequest, 'onProgress' | 'signal'>;

/** What it answers: progress any number of times, then one outcome. */
export type WorkerMessage =
  | { type: 'progress'; done: number; total: number }
  | { type: 'rendered'; rendered: RenderedExport }
  | { type: 'failed'; message: string; exportFailed: boolean };

/** The renderer of a format, loaded alone: an export of one format never loads the others' libraries. */
async function rendererOf(
  format: ExportFormat,
): Promise<(request: RenderRequest) => Promise<RenderedExport>> {
  switch (format) {
    case 'pdf':
      return (await import('./render-pdf.ts')).renderPdf;
    case 'pptx':
      return (await import('./render-pptx.ts')).renderPptx;
    case 'mp4':
      return (await import('./render-mp4.ts')).renderMp4;
  }
}

const port = parentPort!;
const request = workerData as WorkerRequest;
const abort = new AbortController();
port.on('message', (message: { type: string }) => {
  if (message.type === 'abort') abort.abort(new Error('export aborted'));
});
const post = (message: WorkerMessage) => port.postMessage(message);

try {
  const render = await rendererOf(request.format);
  const rendered = await render({
    ...request,
    signal: abort.signal,
    onProgress: (done, total) => post({ type: 'progress', done, total }),
  });
  post({ type: 'rendered', rendered });
} catch (error) {
  post({
    type: 'failed',
    message: error instanceof Error ? error.message : String(error),
    exportFailed: error instanceof ExportFailed,
  });
}
// Nothing of the render may keep the thread alive (a timer, a child's pipe): it is done.
port.close();
