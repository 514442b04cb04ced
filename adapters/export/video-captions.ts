/**
 * The video's captions and chapters as text files ffmpeg reads (decision 077): captions from each
 * page's narration script, timed to that page's audio; chapters at page titles. Pure functions:
 * every loop is one pass over its text.
 */

export interface Cue {
  /** Seconds from the video's start. */
  start: number;
  end: number;
  text: string;
}

/** A cue shows at most this many characters (two lines of a caption, as players wrap them). */
export const MAX_CUE_CHARS = 84;
/** Characters after which a long sentence is best cut into phrases. */
const PHRASE_ENDS = new Set([',', ';', ':', '،', '、', '，', '；', '：', '—']);
const sentences = new Intl.Segmenter(undefined, { granularity: 'sentence' });
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** `text` with every run of white space (line breaks too) as one space, trimmed. */
function oneLine(text: string): string {
  let out = '';
  let space = false;
  for (const char of text) {
    if (char.trim() === '') space = out !== '';
    else {
      if (space) out += ' ';
      out += char;
      space = false;
    }
  }
  return out;
}

interface Cut {
  at: number;
  length: number;
}

/** A sentence cut into phrases of at most MAX_CUE_CHARS graphemes: at a comma, else a space, else anywhere (CJK). */
function phrases(sentence: string): string[] {
  const out: string[] = [];
  let phrase = '';
  let length = 0;
  // Where the phrase could end (after its last comma, after its last space): code units and graphemes.
  let comma: Cut | null = null;
  let space: Cut | null = null;
  for (const { segment } of graphemes.segment(sentence)) {
    if (length >= MAX_CUE_CHARS) {
      const cut: Cut =
        comma ?? (space && space.length > MAX_CUE_CHARS / 3 ? space : { at: phrase.length, length });
      out.push(phrase.slice(0, cut.at).trim());
      phrase = phrase.slice(cut.at);
      length -= cut.length;
      space =
        space && space.at > cut.at ? { at: space.at - cut.at, length: space.length - cut.length } : null;
      comma = null;
    }
    phrase += segment;
    length += 1;
    if (PHRASE_ENDS.has(segment) && length > MAX_CUE_CHARS / 3) comma = { at: phrase.length, length };
    else if (segment === ' ') space = { at: phrase.length, length };
  }
  out.push(phrase.trim());
  return out.filter((p) => p !== '');
}

/** How many graphemes `text` has (a caption's share of the time goes by what it shows). */
function graphemeCount(text: string): number {
  let n = 0;
  for (const _ of graphemes.segment(text)) n++;
  return n;
}

/**
 * A page's narration script as cues over its audio, from `start` for `duration` seconds: cut into
 * sentences, a long sentence into phrases, each on screen for a share of the time as large as its
 * share of the script's characters (speech goes at a steady pace).
 */
export function captionCues(script: string, start: number, duration: number): Cue[] {
  const texts: string[] = [];
  for (const { segment } of sentences.segment(oneLine(script))) {
    const sentence = segment.trim();
    if (sentence === '') continue;
    texts.push(...(graphemeCount(sentence) <= MAX_CUE_CHARS ? [sentence] : phrases(sentence)));
  }
  const weights = texts.map((text) => graphemeCount(text));
  const total = weights.reduce((a, b) => a + b, 0);
  if (total === 0 || duration <= 0) return [];
  const cues: Cue[] = [];
  let done = 0;
  for (const [i, text] of texts.entries()) {
    const from = start + (duration * done) / total;
    done += weights[i]!;
    cues.push({ start: from, end: start + (duration * done) / total, text });
  }
  return cues;
}

/** Seconds as WebVTT writes them: `hh:mm:ss.mmm`. */
export function vttTime(seconds: number): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}.${pad(ms % 1000, 3)}`;
}

const VTT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** Cue text as WebVTT holds it: `&`, `<` and `>` escaped (so no `-->` either), on one line. */
function vttText(text: string): string {
  let out = '';
  for (const char of oneLine(text).toWellFormed()) {
    const code = char.codePointAt(0) ?? 0;
    out += code < 0x20 || code === 0x7f ? '\uFFFD' : (VTT_ESCAPES[char] ?? char);
  }
  return out;
}

/** The cues as a WebVTT file. */
export function webVtt(cues: Cue[]): string {
  const blocks = cues.map(
    (cue, i) => `${i + 1}\n${vttTime(cue.start)} --> ${vttTime(cue.end)}\n${vttText(cue.text)}\n`,
  );
  return ['WEBVTT\n', ...blocks].join('\n');
}

/** A value as ffmetadata holds it: one line, `=`, `;`, `#` and `\` escaped, at most 200 characters. */
function metadataValue(text: string): string {
  let out = '';
  let length = 0;
  for (const char of oneLine(text).toWellFormed()) {
    if (length++ >= 200) break;
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x20 || code === 0x7f) out += ' ';
    else out += '=;#\\'.includes(char) ? `\\${char}` : char;
  }
  return out;
}

/** The video's title and one chapter per page (milliseconds), as an ffmetadata file. */
export function chaptersMetadata(
  title: string,
  chapters: { title: string; start: number; end: number }[],
): string {
  const lines = [';FFMETADATA1', `title=${metadataValue(title)}`];
  for (const chapter of chapters) {
    lines.push(
      '[CHAPTER]',
      'TIMEBASE=1/1000',
      `START=${Math.round(chapter.start * 1000)}`,
      `END=${Math.round(chapter.end * 1000)}`,
      `title=${metadataValue(chapter.title)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
