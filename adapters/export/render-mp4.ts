import { rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ExportFailed, type RenderedExport, type RenderRequest } from '../../domain/ports/deck-exporter.ts';
import { FfmpegFailed, FfmpegOutputTooLarge, runFfmpeg } from './ffmpeg-process.ts';
import type { LayoutPage } from './layout/boxes.ts';
import { layoutDeck } from './layout.ts';
import { type Cue, captionCues, chaptersMetadata, webVtt } from './video-captions.ts';
import { drawFrame, FrameImages } from './video-frame.ts';

/** The narration as the video carries it: 44.1 kHz mono, 16-bit samples. */
const SAMPLE_RATE = 44_100;
const BYTES_PER_SECOND = SAMPLE_RATE * 2;
/** A page without narration (or whose narration does not decode) stays this long, silent. */
export const SILENT_PAGE_SECONDS = 5;
/** How long a video may be; the tests pass smaller ones. */
export interface VideoLimits {
  /** One page's narration at most; longer audio is cut there (with a warning). */
  pageAudioSeconds: number;
  /** A whole video at most: past it the export fails (3 h of raw narration is 950 MB on disk). */
  videoSeconds: number;
}
export const VIDEO_LIMITS: VideoLimits = { pageAudioSeconds: 30 * 60, videoSeconds: 3 * 60 * 60 };
/**
 * Frames a second. The pages are still: a low rate keeps encoding cheap (each frame costs x264
 * about the same, still or not), a page change shows within half a frame of its narration, and
 * every player plays a constant rate (decision 076).
 */
export const FRAME_RATE = 2;
/** A keyframe at least this often (seeking), and at every page's start (chapters). */
const KEYFRAME_SECONDS = 10;

interface TimedPage {
  page: LayoutPage;
  /** Seconds from the video's start. */
  start: number;
  duration: number;
  /** The page's raw narration in the work directory, or null for silence. */
  pcm: string | null;
}

/**
 * The deck as a narrated video (decision 076): 1920×1080 H.264 and AAC in MP4, each page of the
 * layout on screen while its narration plays (SILENT_PAGE_SECONDS without), a chapter at each
 * page's title, captions from the scripts as a WebVTT file and a `mov_text` track.
 *
 * Each page is drawn once to a PNG (resvg) while ffmpeg decodes its MP3 to raw samples, whose
 * count is the page's exact duration; then one ffmpeg run makes the video from the still frames
 * (its concat list holds each page's duration) and the samples laid end to end.
 */
export async function renderMp4(request: RenderRequest, limits = VIDEO_LIMITS): Promise<RenderedExport> {
  const { snapshot, signal, workDir } = request;
  signal.throwIfAborted();
  const layout = layoutDeck(snapshot);
  const warnings = [...layout.warnings];
  const images = new FrameImages();
  const pages: TimedPage[] = [];
  let start = 0;
  const total = layout.pages.length;
  const silence = join(workDir, 'silence.pcm');
  await writeFile(silence, Buffer.alloc(SILENT_PAGE_SECONDS * BYTES_PER_SECOND));
  try {
    for (const [i, page] of layout.pages.entries()) {
      signal.throwIfAborted();
      const n = String(i + 1).padStart(3, '0');
      // ffmpeg decodes the narration while this thread draws the frame.
      const decoding = decodeNarration(
        page,
        join(workDir, `page-${n}.pcm`),
        workDir,
        signal,
        warnings,
        limits,
      );
      decoding.catch(() => {});
      const png = drawOrBlank(page, images, warnings);
      await writeFile(join(workDir, `page-${n}.png`), png);
      const { pcm, seconds } = await decoding;
      pages.push({ page, start, duration: seconds, pcm });
      start += seconds;
      if (start > limits.videoSeconds)
        throw new ExportFailed(`the video would be longer than ${limits.videoSeconds} s, the most one holds`);
      request.onProgress(i + 1, total);
    }
    const filePath = join(workDir, 'deck.mp4');
    const captionsPath = request.captions ? join(workDir, 'deck.vtt') : undefined;
    await writeInputs(pages, snapshot.deckName, workDir, captionsPath);
    await encode(pages, start, workDir, silence, filePath, captionsPath, signal);
    return {
      filePath,
      contentType: 'video/mp4',
      extension: 'mp4',
      ...(captionsPath ? { captionsPath } : {}),
      warnings,
    };
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (error instanceof ExportFailed) throw error;
    throw new ExportFailed(`the video could not be made: ${(error as Error).message}`, { cause: error });
  } finally {
    await Promise.all(
      pages.map((p) => (p.pcm ? rm(p.pcm, { force: true }) : undefined)).concat(rm(silence, { force: true })),
    ).catch(() => {});
  }
}

/** The page's frame; should resvg refuse it, the page's background alone, and a warning. */
function drawOrBlank(page: LayoutPage, images: FrameImages, warnings: string[]): Buffer {
  try {
    return drawFrame(page, images, warnings);
  } catch (error) {
    warnings.push(`${page.name}: could not be drawn (${(error as Error).message}): shown blank`);
    return drawFrame({ ...page, boxes: [] }, images, warnings);
  }
}

/**
 * The page's narration decoded to raw samples in `path`, and its exact length; silence (null) and
 * a warning naming the page when it has none or it does not decode. Read as MP3 only (`-f mp3`):
 * ffmpeg never guesses another format from a file's bytes, such as a playlist naming other files.
 */
async function decodeNarration(
  page: LayoutPage,
  path: string,
  workDir: string,
  signal: AbortSignal,
  warnings: string[],
  limits: VideoLimits,
): Promise<{ pcm: string | null; seconds: number }> {
  if (!page.audioPath) {
    warnings.push(`${page.name}: no narration: on screen for ${SILENT_PAGE_SECONDS} s, silent`);
    return { pcm: null, seconds: SILENT_PAGE_SECONDS };
  }
  const maxBytes = Math.floor(limits.pageAudioSeconds * SAMPLE_RATE) * 2;
  let bytes: number;
  try {
    bytes = await runFfmpeg(
      [
        '-f',
        'mp3',
        '-i',
        page.audioPath,
        '-map',
        '0:a:0',
        '-f',
        's16le',
        '-ac',
        '1',
        '-ar',
        `${SAMPLE_RATE}`,
        'pipe:1',
      ],
      { cwd: workDir, signal, output: { path, maxBytes } },
    );
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (error instanceof FfmpegOutputTooLarge) {
      // The file holds the samples up to the bound, exactly.
      const written = (await stat(path)).size;
      await truncateTo(path, written);
      warnings.push(`${page.name}: the narration is cut at ${limits.pageAudioSeconds} s`);
      return { pcm: path, seconds: (written - (written % 2)) / BYTES_PER_SECOND };
    }
    if (!(error instanceof FfmpegFailed)) throw error;
    bytes = 0;
  }
  const samples = Math.floor(bytes / 2);
  if (samples < SAMPLE_RATE / 100) {
    await rm(path, { force: true });
    warnings.push(
      `${page.name}: the narration does not decode as MP3: on screen for ${SILENT_PAGE_SECONDS} s, silent`,
    );
    return { pcm: null, seconds: SILENT_PAGE_SECONDS };
  }
  if (bytes % 2 !== 0) await truncateTo(path, samples * 2);
  return { pcm: path, seconds: samples / SAMPLE_RATE };
}

async function truncateTo(path: string, bytes: number): Promise<void> {
  await truncate(path, bytes - (bytes % 2));
}

/** The concat list of frames, the chapters, and the captions, for the encoding run. */
async function writeInputs(
  pages: TimedPage[],
  deckName: string,
  workDir: string,
  captionsPath: string | undefined,
): Promise<void> {
  // Each frame with its page's duration; the last named again, or ffmpeg shows it for no time.
  const list = ['ffconcat version 1.0'];
  for (const [i, p] of pages.entries()) {
    list.push(`file page-${String(i + 1).padStart(3, '0')}.png`, `duration ${p.duration.toFixed(6)}`);
  }
  list.push(`file page-${String(pages.length).padStart(3, '0')}.png`);
  await writeFile(join(workDir, 'frames.ffconcat'), `${list.join('\n')}\n`);
  await writeFile(
    join(workDir, 'chapters.ffmeta'),
    chaptersMetadata(
      deckName,
      pages.map((p) => ({ title: p.page.title, start: p.start, end: p.start + p.duration })),
    ),
  );
  if (captionsPath) {
    const cues: Cue[] = [];
    for (const p of pages) {
      // Captions follow the speech: a silent page has none, whatever its script.
      if (p.pcm && p.page.script) cues.push(...captionCues(p.page.script, p.start, p.duration));
    }
    await writeFile(captionsPath, webVtt(cues));
  }
}

async function encode(
  pages: TimedPage[],
  duration: number,
  workDir: string,
  silence: string,
  filePath: string,
  captionsPath: string | undefined,
  signal: AbortSignal,
): Promise<void> {
  // The narration, page after page, as one stream of samples (ffmpeg's concat protocol).
  const audio = `concat:${pages.map((p) => p.pcm ?? silence).join('|')}`;
  const keyframes = pages.map((p) => p.start.toFixed(3)).join(',');
  // biome-ignore format: ffmpeg's options, a line for each thing they set
  const args = [
    '-f', 'concat', '-i', 'frames.ffconcat',
    '-f', 's16le', '-ar', `${SAMPLE_RATE}`, '-ac', '1', '-i', audio,
    '-f', 'ffmetadata', '-i', 'chapters.ffmeta',
    ...(captionsPath ? ['-f', 'webvtt', '-i', captionsPath] : []),
    '-map', '0:v:0', '-map', '1:a:0', ...(captionsPath ? ['-map', '3:s:0'] : []),
    '-map_metadata', '2', '-map_chapters', '2',
    // RGB to BT.709 (what players assume of HD), converted once per page, then repeated.
    '-vf', `scale=out_color_matrix=bt709:out_range=tv,format=yuv420p,fps=${FRAME_RATE}`,
    '-color_primaries', 'bt709', '-color_trc', 'bt709', '-colorspace', 'bt709',
    '-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'stillimage', '-crf', '20',
    // A still page's frames are near empty to code: x264's analysis is what costs, so it is cut.
    '-x264-params', 'bframes=0:ref=1:rc-lookahead=0:mbtree=0:subme=1:me=dia:trellis=0:sync-lookahead=0',
    '-g', `${KEYFRAME_SECONDS * FRAME_RATE}`, '-force_key_frames', keyframes, '-threads', '2',
    '-c:a', 'aac', '-b:a', '96k',
    ...(captionsPath ? ['-c:s', 'mov_text', '-metadata:s:s:0', 'language=und'] : []),
    '-max_muxing_queue_size', '4096',
    '-t', duration.toFixed(3),
    '-movflags', '+faststart',
    '-y', filePath,
  ];
  await runFfmpeg(args, { cwd: workDir, signal });
}
