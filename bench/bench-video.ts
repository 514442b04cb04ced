/**
 * `npm run bench:video`: the MP4 renderer alone (adapters/export/render-mp4.ts) on a
 * 10-page deck (intro, 8 slides with a hero image, closing without narration) whose narration is
 * real espeak-ng MP3s of about 15 s a page. Renders it BENCH_RUNS (3) times and prints each run's
 * time, the audio's length and the real-time factor. Last line, for scripts:
 * `video: 10 pages <s> s of video, median <ms> ms`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { renderMp4 } from '../adapters/export/render-mp4.ts';
import type { DeckSnapshot } from '../domain/ports/deck-exporter.ts';
import { acmeSnapshotBranding, exportSlide, speakAll, videoSeconds } from '../test/helpers/export-deck.ts';
import { png } from '../test/helpers/files.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SCRIPT =
  'Our platform lets every sales rep present a polished deck. Answers are spoken in a clear, natural voice, while the team tracks what prospects ask and which slides they linger on.';

const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-video-'));
try {
  const texts = Object.fromEntries(
    Array.from({ length: 9 }, (_, i) => [`page-${i}`, `Page ${i + 1}. ${SCRIPT}`]),
  );
  const mp3 = await speakAll(dir, texts, 8 << 20);
  const hero = path.join(dir, 'hero.png');
  await writeFile(hero, png(1280, 720));
  const slides = Array.from({ length: 8 }, (_, i) =>
    exportSlide(i + 1, {
      title: `Why teams choose us, reason ${i + 1}`,
      bullets: ['Decks ready in minutes', 'Narration in every voice', 'Answers while you sleep'],
      slideContext: 'Customers ship twice as fast.',
      narrationScript: `Page ${i + 2}. ${SCRIPT}`,
      heroImagePath: hero,
      audioPath: mp3[`page-${i + 1}`]!,
    }),
  );
  const snapshot: DeckSnapshot = {
    deckName: 'Benchmark deck',
    branding: acmeSnapshotBranding(),
    logoPath: null,
    intro: { title: 'Welcome', script: `Page 1. ${SCRIPT}`, audioPath: mp3['page-0']! },
    slides,
    faqs: [],
  };
  const timings: number[] = [];
  let seconds = 0;
  for (let run = 0; run < RUNS; run++) {
    const workDir = await mkdtemp(path.join(dir, 'run-'));
    const started = performance.now();
    let drawn = 0;
    const video = await renderMp4({
      format: 'mp4',
      snapshot,
      captions: true,
      workDir,
      onProgress: (done, total) => {
        if (done === total) drawn = performance.now() - started;
      },
      signal: new AbortController().signal,
    });
    const ms = performance.now() - started;
    timings.push(ms);
    // The narration plus 5 s for the closing page.
    seconds = videoSeconds(video.filePath);
    console.log(
      `run ${run + 1}: ${ms.toFixed(0)} ms (pages drawn and narration decoded: ${drawn.toFixed(0)} ms), ${seconds.toFixed(1)} s of video, ${(seconds / (ms / 1000)).toFixed(1)}× real time`,
    );
    await rm(workDir, { recursive: true, force: true });
  }
  const median = [...timings].sort((a, b) => a - b)[Math.floor(timings.length / 2)]!;
  console.log(`video: 10 pages ${seconds.toFixed(1)} s of video, median ${median.toFixed(0)} ms`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
