/**
 * Peak memory under concurrent contract imports: starts the real service (embedded
 * PostgreSQL in a throw-away DATA_DIR), signs in, and posts N imports of a ~10 MB DOCX at once
 * (a real Word document carrying an incompressible 9.5 MB attachment, as scanned pages do).
 * Prints the resident set size before and at its peak (sampled every 10 ms) and the answers
 * by status: past the caller's share of upload memory (all imports here are one caller's) the
 * service answers 429, past the upload memory budget or the extraction queue 503, each with
 * Retry-After, instead of growing.
 *
 *   npm run bench:uploads            # 20 concurrent imports
 *   UPLOADS=40 npm run bench:uploads
 *   UPLOAD_MEMORY_PER_CALLER_BYTES=104857600 UPLOAD_MEMORY_PER_ORGANIZATION_BYTES=104857600 \
 *     npm run bench:uploads          # the whole budget open to the one caller
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { unzipSync, zipSync } from 'fflate';
import { signedInCookie, startScratchApp } from './bench-setup.ts';

const uploads = Number(process.env.UPLOADS ?? 20);
const fixture = path.resolve(
  import.meta.dirname,
  '../../shared/fixtures/contracts/common-paper-mutual-nda.docx',
);

function tenMegabyteDocx(): Buffer {
  const files = unzipSync(readFileSync(fixture));
  files['word/media/scan.bin'] = [new Uint8Array(randomBytes(9.5 * 1024 * 1024)), { level: 0 }] as never;
  return Buffer.from(zipSync(files));
}

const { app, close } = await startScratchApp();
try {
  const cookie = await signedInCookie(app, 'Bench uploads');
  const docx = tenMegabyteDocx();
  // One Blob for every upload: the client side (in this process too) holds the bytes once.
  const blob = new Blob([new Uint8Array(docx)]);

  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const started = performance.now();
  const statuses = await Promise.all(
    Array.from({ length: uploads }, async () => {
      const form = new FormData();
      form.append('file', blob, 'contract.docx');
      const response = await fetch(`${app.url}/api/contracts/import`, {
        method: 'POST',
        headers: { cookie },
        body: form,
      });
      await response.arrayBuffer();
      return response.status;
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  const counts = Object.entries(
    statuses.reduce<Record<number, number>>((all, s) => {
      all[s] = (all[s] ?? 0) + 1;
      return all;
    }, {}),
  )
    .map(([status, n]) => `${n} × ${status}`)
    .join(', ');
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
  console.log(
    `uploads: ${uploads} × ${mb(docx.length)} DOCX in ${seconds.toFixed(1)} s → ${counts}; RSS ${mb(baseline)} before, peak ${mb(peak)} (+${mb(peak - baseline)})`,
  );
} finally {
  await close();
}
