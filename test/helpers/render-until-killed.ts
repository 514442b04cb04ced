// A stand-in for the service in test/export-process.test.ts: renders one export with the service's
// exporter (a render process of its own) and waits to be killed. Arguments: the request as JSON
// (format, snapshot, captions, workDir).
import { readFileSync } from 'node:fs';
import { createDeckExporter } from '../../adapters/export/deck-exporter.ts';

const order = JSON.parse(readFileSync(process.argv[2]!, 'utf8'));
const exporter = createDeckExporter({ workerMemoryMb: 512, timeoutMs: 600_000 });
let told = false;
exporter
  .render({
    ...order,
    signal: new AbortController().signal,
    onProgress: () => {
      if (!told) console.log('rendering');
      told = true;
    },
  })
  .then(
    () => console.log('rendered'),
    (error: Error) => console.log(`failed: ${error.message}`),
  );
