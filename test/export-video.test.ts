import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FfmpegFailed, FfmpegOutputTooLarge, runFfmpeg } from '../adapters/export/ffmpeg-process.ts';
import { renderMp4, SILENT_PAGE_SECONDS, VIDEO_LIMITS } from '../adapters/export/render-mp4.ts';
import type { DeckSnapshot, RenderedExport, RenderRequest } from '../domain/ports/deck-exporter.ts';
import { exportSlide, q4Pitch, speakAll } from './helpers/export-deck.ts';
import { png } from './helpers/files.ts';

/**
 * The narrated video (issue 39), rendered from a deck built here with real narration MP3s
 * (espeak-ng) and read by an independent tool: Debian's ffprobe (streams, duration, chapters, the
 * subtitle track's samples, the WebVTT file's cues).
 */
const run = promisify(execFile);

interface Probe {
  format: { duration: string };
  streams: { codec_type: string; codec_name: string; width?: number; height?: number }[];
  chapters: { start_time: string; end_time: string; tags?: { title?: string } }[];
  packets?: { pts_time: string; duration_time: string; size: string }[];
}
async function ffprobe(file: string, ...args: string[]): Promise<Probe> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-of', 'json', ...args, file], {
    maxBuffer: 16 << 20,
  });
  return JSON.parse(stdout) as Probe;
}
/** An MP3's length as ffprobe reads it (independently of the renderer's own decoding). */
async function seconds(mp3: string): Promise<number> {
  return Number((await ffprobe(mp3, '-show_format')).format.duration);
}

const scripts = {
  intro: 'Welcome to the tour. It takes a minute.',
  slide: 'We ship in days, not months, and our support answers within the hour, every day of the year.',
  faq: 'Yes: thirty days, no card needed.',
};

let dir: string;
let mp3: { intro: string; slide: string; faq: string };
let deck: DeckSnapshot;

function request(
  workDir: string,
  captions: boolean,
  progress: number[][] = [],
  signal?: AbortSignal,
): RenderRequest {
  return {
    format: 'mp4',
    snapshot: deck,
    captions,
    workDir,
    onProgress: (done, total) => progress.push([done, total]),
    signal: signal ?? new AbortController().signal,
  };
}
async function workDir(name: string): Promise<string> {
  return mkdtemp(path.join(dir, `${name}-`));
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'export-video-'));
  mp3 = await speakAll(dir, scripts);
  const hero = path.join(dir, 'hero');
  await writeFile(hero, png(640, 360));
  deck = q4Pitch({ scripts, mp3 }, hero, {
    branding: null,
    logoPath: null,
    moreSlides: [
      exportSlide(2, {
        title: 'A quiet slide',
        bullets: ['Read, not heard'],
        narrationScript: 'A script whose audio was never made.',
      }),
    ],
    faqs: [{ question: 'Is there a free trial?', answer: scripts.faq, audioPath: mp3.faq }],
  });
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('MP4 export', () => {
  let video: RenderedExport;
  let probe: Probe;
  const progress: number[][] = [];
  /** Each page's span in the video, as the narration MP3s measure it (the quiet slide: 5 s). */
  let spans: { title: string; start: number; end: number }[];

  beforeAll(async () => {
    video = await renderMp4(request(await workDir('captions'), true, progress));
    probe = await ffprobe(video.filePath, '-show_format', '-show_streams', '-show_chapters');
    const lengths = [
      ['Welcome to Acme', await seconds(mp3.intro)],
      ['Why us', await seconds(mp3.slide)],
      ['A quiet slide', SILENT_PAGE_SECONDS],
      ['Is there a free trial?', await seconds(mp3.faq)],
    ] as const;
    let start = 0;
    spans = lengths.map(([title, length]) => {
      start += length;
      return { title, start: start - length, end: start };
    });
  }, 60_000);

  it('is 1920×1080 H.264 with AAC audio, as long as the narration plus 5 s for the page without', () => {
    expect(video.contentType).toBe('video/mp4');
    expect(path.basename(video.filePath)).toMatch(/\.mp4$/);
    const videoStream = probe.streams.find((s) => s.codec_type === 'video');
    expect(videoStream).toMatchObject({ codec_name: 'h264', width: 1920, height: 1080 });
    expect(probe.streams.find((s) => s.codec_type === 'audio')?.codec_name).toBe('aac');
    const expected = spans.at(-1)!.end;
    expect(Math.abs(Number(probe.format.duration) - expected)).toBeLessThanOrEqual(0.3);
    expect(progress).toEqual([
      [1, 4],
      [2, 4],
      [3, 4],
      [4, 4],
    ]);
    expect(video.warnings).toEqual([
      expect.stringMatching(/^slide-2: no narration: on screen for 5 s, silent$/),
    ]);
  });

  it('has one chapter per page, at its title, where its narration plays', () => {
    expect(probe.chapters.map((c) => c.tags?.title)).toEqual(spans.map((s) => s.title));
    for (const [i, chapter] of probe.chapters.entries()) {
      expect(Math.abs(Number(chapter.start_time) - spans[i]!.start)).toBeLessThanOrEqual(0.15);
      expect(Math.abs(Number(chapter.end_time) - spans[i]!.end)).toBeLessThanOrEqual(0.15);
    }
  });

  it('has a WebVTT file whose cues lie within their pages and say each script, and the same cues as a subtitle track', async () => {
    expect(video.captionsPath).toBeDefined();
    const subtitles = probe.streams.filter((s) => s.codec_type === 'subtitle');
    expect(subtitles.map((s) => s.codec_name)).toEqual(['mov_text']);
    // ffprobe reads the WebVTT file: it parses, and each cue is a packet with its times.
    const vtt = await ffprobe(
      video.captionsPath!,
      '-f',
      'webvtt',
      '-show_packets',
      '-show_entries',
      'packet=pts_time,duration_time,size',
    );
    const text = await readFile(video.captionsPath!, 'utf8');
    const cueTexts = text
      .split('\n\n')
      .slice(1)
      .map((block) => block.split('\n').slice(2).join(' ').trim());
    const cues = vtt.packets!.map((p, i) => ({
      start: Number(p.pts_time),
      end: Number(p.pts_time) + Number(p.duration_time),
      text: cueTexts[i],
    }));
    expect(cues.length).toBeGreaterThanOrEqual(3);
    // The page each cue falls in (a millisecond of rounding allowed), and what it says there.
    const said = new Map<string, string[]>();
    for (const cue of cues) {
      const page = spans.find((s) => cue.start >= s.start - 0.15 && cue.end <= s.end + 0.15);
      expect(page, `cue ${cue.start}–${cue.end} "${cue.text}"`).toBeDefined();
      said.set(page!.title, [...(said.get(page!.title) ?? []), cue.text!]);
    }
    expect(said.get('Welcome to Acme')?.join(' ')).toBe(scripts.intro);
    expect(said.get('Why us')?.join(' ')).toBe(scripts.slide);
    expect(said.get('Is there a free trial?')?.join(' ')).toBe(scripts.faq);
    // The silent page is not captioned: nothing is spoken there.
    expect(said.has('A quiet slide')).toBe(false);
    // The intro's two sentences are two cues, the slide's long sentence more than one phrase.
    expect(said.get('Welcome to Acme')).toHaveLength(2);
    expect(said.get('Why us')!.length).toBeGreaterThan(1);
    // The track in the MP4 holds the same cues (mov_text fills the gaps with empty samples).
    const track = await ffprobe(
      video.filePath,
      '-select_streams',
      's',
      '-show_packets',
      '-show_entries',
      'packet=pts_time,duration_time,size',
    );
    const shown = track.packets!.filter((p) => Number(p.size) > 2);
    expect(shown.map((p) => Number(p.pts_time).toFixed(2))).toEqual(cues.map((c) => c.start.toFixed(2)));
  });

  it('without captions has no subtitle track and no WebVTT file', async () => {
    const dir = await workDir('no-captions');
    const plain = await renderMp4(request(dir, false));
    expect(plain.captionsPath).toBeUndefined();
    const streams = (await ffprobe(plain.filePath, '-show_streams')).streams;
    expect(streams.filter((s) => s.codec_type === 'subtitle')).toEqual([]);
    expect(streams.map((s) => s.codec_name).sort()).toContain('h264');
    expect((await readdir(dir)).filter((f) => f.endsWith('.vtt'))).toEqual([]);
  }, 60_000);
});

describe('MP4 export of what cannot be drawn or heard', () => {
  it('leaves out a broken image, draws any script, and keeps a page whose MP3 does not decode silent for 5 s', async () => {
    const broken = path.join(dir, 'broken-image');
    await writeFile(broken, png(640, 360).subarray(0, 300));
    const notMp3 = path.join(dir, 'not-an-mp3');
    await writeFile(
      notMp3,
      Buffer.from('#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile:///etc/passwd\n'),
    );
    const hostile: DeckSnapshot = {
      ...deck,
      intro: null,
      faqs: [],
      slides: [
        {
          ...deck.slides[0]!,
          title: 'مرحبا بالعالم — 你好，世界 — Привет, Γειά σου 👋🏽👨‍👩‍👧 ሰላም ༀ \u0000\u0007\uD800 <b>&amp;',
          bullets: ['שלום עולם', '🇫🇷 Français, 日本語のテキスト, 한국어', `${'long words '.repeat(400)}`],
          heroImagePath: broken,
          audioPath: notMp3,
          narrationScript: 'Never heard.',
        },
      ],
    };
    const signal = new AbortController().signal;
    const video = await renderMp4({ ...request(await workDir('hostile'), true), snapshot: hostile, signal });
    expect(video.warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^slide-1: the hero image does not decode as an image: left out/),
        'slide-1: the narration does not decode as MP3: on screen for 5 s, silent',
        'intro: no narration: on screen for 5 s, silent',
      ]),
    );
    const probe = await ffprobe(video.filePath, '-show_format', '-show_streams');
    // Two silent pages: the intro (it has no narration) and the slide.
    expect(Math.abs(Number(probe.format.duration) - 2 * SILENT_PAGE_SECONDS)).toBeLessThanOrEqual(0.3);
    expect(probe.streams.find((s) => s.codec_type === 'video')).toMatchObject({ width: 1920, height: 1080 });
    // Nothing was spoken, so nothing is captioned.
    expect((await readFile(video.captionsPath!, 'utf8')).trim()).toBe('WEBVTT');
  }, 60_000);
});

describe('MP4 export limits', () => {
  it("cuts a page's narration past its bound, with a warning", async () => {
    const limits = { ...VIDEO_LIMITS, pageAudioSeconds: 1 };
    const video = await renderMp4(request(await workDir('page-limit'), false), limits);
    expect(video.warnings).toEqual(
      expect.arrayContaining([
        'intro: the narration is cut at 1 s',
        'slide-1: the narration is cut at 1 s',
        'faq-1: the narration is cut at 1 s',
      ]),
    );
    const chapters = (await ffprobe(video.filePath, '-show_chapters')).chapters;
    const lengths = chapters.map((c) => Number(c.end_time) - Number(c.start_time));
    for (const i of [0, 1, 3]) {
      expect(lengths[i]).toBeGreaterThan(0.2);
      expect(lengths[i]).toBeLessThanOrEqual(1.001);
    }
    expect(lengths[2]).toBeCloseTo(SILENT_PAGE_SECONDS, 2);
  }, 60_000);

  it('refuses a video longer than its bound, and makes one at it', async () => {
    const limits = { ...VIDEO_LIMITS, videoSeconds: SILENT_PAGE_SECONDS };
    const silent: DeckSnapshot = { ...deck, intro: null, slides: [], faqs: [] };
    // One page: the intro without narration, exactly the bound.
    const atLimit = await renderMp4(
      { ...request(await workDir('at-limit'), false), snapshot: silent },
      limits,
    );
    expect(Number((await ffprobe(atLimit.filePath, '-show_format')).format.duration)).toBeCloseTo(
      SILENT_PAGE_SECONDS,
      0,
    );
    // Past it, the export fails before anything is encoded.
    const past = workDir('past-limit');
    await expect(renderMp4(request(await past, false), limits)).rejects.toThrow(
      `the video would be longer than ${SILENT_PAGE_SECONDS} s, the most one holds`,
    );
    expect(existsSync(path.join(await past, 'deck.mp4'))).toBe(false);
  }, 60_000);

  it('stops ffmpeg when its output passes its bound, and keeps only the end of what it says', async () => {
    const out = path.join(dir, 'bounded.pcm');
    const decode = ['-f', 'mp3', '-i', mp3.slide, '-f', 's16le', 'pipe:1'];
    const signal = new AbortController().signal;
    await expect(
      runFfmpeg(decode, { cwd: dir, signal, output: { path: out, maxBytes: 10_000 } }),
    ).rejects.toBeInstanceOf(FfmpegOutputTooLarge);
    expect((await stat(out)).size).toBeLessThanOrEqual(10_000);
    // At the bound: the whole output, when it is no larger.
    const whole = await runFfmpeg(decode, { cwd: dir, signal, output: { path: out, maxBytes: 100 << 20 } });
    expect(await runFfmpeg(decode, { cwd: dir, signal, output: { path: out, maxBytes: whole } })).toBe(whole);
    // A failure's message holds the end of ffmpeg's errors, not all of them.
    const failed = runFfmpeg(['-f', 'mp3', '-i', path.join(dir, 'no-such-file'), '-f', 'null', '-'], {
      cwd: dir,
      signal,
    });
    await expect(failed).rejects.toBeInstanceOf(FfmpegFailed);
    const message = (await failed.catch((error: Error) => error.message)) as string;
    expect(message).toMatch(/^ffmpeg exited with 1: .*no-such-file/);
    expect(message.length).toBeLessThan(2200);
  }, 60_000);
});

describe('MP4 export canceled', () => {
  /** The processes whose working directory is `dir` (ffmpeg runs in the export's work directory). */
  async function processesIn(dir: string): Promise<string[]> {
    const found: string[] = [];
    for (const pid of await readdir('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        if ((await readlink(`/proc/${pid}/cwd`)) === dir) found.push(pid);
      } catch {
        // Gone, or not ours to read.
      }
    }
    return found;
  }

  it('stops the encoder at once when the signal aborts, and rejects with its reason', async () => {
    const dir = await workDir('canceled');
    const controller = new AbortController();
    const reason = new Error('canceled by the test');
    let settled = false;
    let encoderSeen: Promise<string[]> | undefined;
    const rendering = renderMp4({
      ...request(dir, true, [], controller.signal),
      onProgress(done, total) {
        // After the last page the encoder starts: once it runs in the work directory, cancel.
        if (done < total) return;
        encoderSeen = (async () => {
          while (!settled) {
            const pids = await processesIn(dir);
            if (pids.length > 0) {
              controller.abort(reason);
              return pids;
            }
          }
          return [];
        })();
      },
    });
    rendering.then(
      () => (settled = true),
      () => (settled = true),
    );
    await expect(rendering).rejects.toBe(reason);
    const pids = await encoderSeen!;
    expect(pids.length).toBeGreaterThan(0);
    // Killed: its process is gone (reaped before the promise settled), and it stopped mid-file,
    // leaving no video a player could open (ffmpeg left to finish writes its index last).
    expect(await processesIn(dir)).toEqual([]);
    const left = path.join(dir, 'deck.mp4');
    if (existsSync(left)) await expect(ffprobe(left, '-show_format')).rejects.toThrow();
    expect(existsSync(path.join(dir, 'page-001.pcm'))).toBe(false);
  }, 60_000);
});
