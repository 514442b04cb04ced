// Runs in a worker thread: parsing a 10 MB document takes long enough to stall every other
// request if it ran on the main event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { parseOffice } from 'officeparser';

const { bytes } = workerData as { bytes: Uint8Array };
try {
  const ast = await parseOffice(Buffer.from(bytes));
  const text = (await ast.to('text')).value;
  parentPort!.postMessage({ ok: true, text: typeof text === 'string' ? text : String(text) });
} catch (error) {
  parentPort!.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) });
}
