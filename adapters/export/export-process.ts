// Runs as a child process of its own, one per export (adapters/export/deck-exporter.ts): the
// renderer of the export's format, fed the request in the first message; progress and the outcome
// go back as messages, an `abort` message comes in when the export is canceled or the instance
// stops. Should the service die (even by SIGKILL), the IPC channel closes: the render is aborted
// (its ffmpeg killed) and this process ends.
import {
  ExportFailed,
  type ExportFormat,
  type RenderedExport,
  type RenderRequest,
} from '../../domain/ports/deck-exporter.ts';

/** What the process is given: the request without its callbacks. */
export type RenderOrder = Omit<RenderRequest, 'onProgress' | 'signal'>;

/** What it is sent: the order once, then perhaps `abort`. */
export type ProcessCommand = { type: 'render'; order: RenderOrder } | { type: 'abort' };

/** What it answers: progress any number of times, then one outcome. */
export type ProcessMessage =
  | { type: 'progress'; done: number; total: number }
  | { type: 'rendered'; rendered: RenderedExport }
  | { type: 'failed'; message: string; exportFailed: boolean };

/** How long an orphaned render may take to stop by itself once aborted. */
const ORPHAN_GRACE_MS = 2000;

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

const abort = new AbortController();
let finished = false;
/** To the service, while it listens (an orphan's last words go nowhere, without an error). */
const post = (message: ProcessMessage) => {
  if (process.connected) process.send?.(message, undefined, {}, () => {});
};

async function render(order: RenderOrder): Promise<void> {
  try {
    const renderer = await rendererOf(order.format);
    const rendered = await renderer({
      ...order,
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
  finished = true;
  // Done: the channel is let go, so nothing (a timer, a child's pipe) keeps the process alive.
  if (process.connected) process.disconnect?.();
}

process.on('message', (command: ProcessCommand) => {
  if (command.type === 'render') void render(command.order);
  else abort.abort(new Error('export aborted'));
});
process.once('disconnect', () => {
  if (finished || abort.signal.aborted) return;
  abort.abort(new Error('the service is gone'));
  setTimeout(() => process.exit(1), ORPHAN_GRACE_MS).unref();
});
