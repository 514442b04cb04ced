import { createRequire } from 'node:module';
import * as fontkit from 'fontkit';

/**
 * The fonts every export draws with, shipped as TTF files inside npm packages (nothing downloads;
 * decision 074). One chain, tried in order for each character: the first font that has its glyph
 * draws it; a character none has is drawn by the first font's missing-glyph box (.notdef).
 * The PDF embeds these files, the video draws with them, and the layout measures with them, so the
 * three agree on where every line breaks. PowerPoint shows the brand's font name where it has it.
 */
export type FontWeight = 400 | 700;

export interface BundledFamily {
  /** The family name (what the layout's text boxes and PowerPoint name). */
  family: string;
  /** What it is for, in the chain. */
  covers: string;
  files: Record<FontWeight, string>;
}

const require = createRequire(import.meta.url);
function file(pkg: string, name: string): string {
  return require.resolve(`${pkg}/${name}`);
}

/** The chain, in order: Latin/Cyrillic/Greek first (the body text), emoji last. */
export const FAMILIES: readonly BundledFamily[] = [
  {
    family: 'Noto Sans',
    covers: 'Latin, Cyrillic, Greek',
    files: {
      400: file('@expo-google-fonts/noto-sans', '400Regular/NotoSans_400Regular.ttf'),
      700: file('@expo-google-fonts/noto-sans', '700Bold/NotoSans_700Bold.ttf'),
    },
  },
  {
    family: 'Noto Sans Arabic',
    covers: 'Arabic',
    files: {
      400: file('@expo-google-fonts/noto-sans-arabic', '400Regular/NotoSansArabic_400Regular.ttf'),
      700: file('@expo-google-fonts/noto-sans-arabic', '700Bold/NotoSansArabic_700Bold.ttf'),
    },
  },
  {
    family: 'Noto Sans Hebrew',
    covers: 'Hebrew',
    files: {
      400: file('@expo-google-fonts/noto-sans-hebrew', '400Regular/NotoSansHebrew_400Regular.ttf'),
      700: file('@expo-google-fonts/noto-sans-hebrew', '700Bold/NotoSansHebrew_700Bold.ttf'),
    },
  },
  {
    family: 'Noto Sans SC',
    covers: 'Chinese (simplified and traditional), Japanese kana',
    files: {
      400: file('@expo-google-fonts/noto-sans-sc', '400Regular/NotoSansSC_400Regular.ttf'),
      700: file('@expo-google-fonts/noto-sans-sc', '700Bold/NotoSansSC_700Bold.ttf'),
    },
  },
  {
    family: 'Noto Emoji',
    covers: 'emoji (monochrome)',
    files: {
      400: file('@expo-google-fonts/noto-emoji', '400Regular/NotoEmoji_400Regular.ttf'),
      700: file('@expo-google-fonts/noto-emoji', '700Bold/NotoEmoji_700Bold.ttf'),
    },
  },
];

/** The family body text is set in (the chain's first). */
export const BASE_FAMILY = 'Noto Sans';

/** Every bundled file, for a renderer that registers fonts by file (resvg's `fontFiles`). */
export function fontFiles(): { family: string; weight: FontWeight; path: string }[] {
  return FAMILIES.flatMap((f) =>
    ([400, 700] as const).map((weight) => ({ family: f.family, weight, path: f.files[weight] })),
  );
}

const opened = new Map<string, fontkit.Font>();
/** The font of a family and weight, opened once per thread (a file is read lazily by fontkit). */
export function openFont(family: string, weight: FontWeight): fontkit.Font {
  const key = `${family}/${weight}`;
  let font = opened.get(key);
  if (!font) {
    const entry = FAMILIES.find((f) => f.family === family) ?? FAMILIES[0];
    if (!entry) throw new Error('no bundled font');
    font = fontkit.openSync(entry.files[weight]) as fontkit.Font;
    opened.set(key, font);
  }
  return font;
}

/** A piece of text drawn with one font. `missing`: no bundled font has it (drawn as a box). */
export interface FontRun {
  text: string;
  family: string;
  missing: boolean;
}

// Joiners and variation selectors belong to the character before them (emoji sequences).
const JOINERS = new Set([0x200d, 0xfe0e, 0xfe0f, 0x20e3]);
// Characters any font of the chain may draw: they stay in the run they are in (so an Arabic
// phrase's spaces keep it one run, shaped together).
const NEUTRAL = /^[\s\p{P}\p{N}]$/u;
const SPACE = /^\s+$/u;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

function covers(font: fontkit.Font, grapheme: string): boolean {
  for (const char of grapheme) {
    const code = char.codePointAt(0) ?? 0;
    // Skin-tone modifiers: a font without them still draws the emoji.
    if (JOINERS.has(code) || (code >= 0x1f3fb && code <= 0x1f3ff)) continue;
    if (!font.hasGlyphForCodePoint(code)) return false;
  }
  return true;
}

const chosen = new Map<string, string | undefined>();
/** The first family of the chain with every glyph of `grapheme` (cached per grapheme). */
function firstCovering(grapheme: string, weight: FontWeight): string | undefined {
  const key = `${weight}:${grapheme}`;
  if (chosen.has(key)) return chosen.get(key);
  const family = FAMILIES.find((f) => covers(openFont(f.family, weight), grapheme))?.family;
  if (chosen.size < 100_000) chosen.set(key, family);
  return family;
}

/**
 * `text` cut into runs, each drawn by the first font of the chain that has all its glyphs.
 * Linear in the text's length (one pass over its graphemes).
 */
export function fontRuns(text: string, weight: FontWeight): FontRun[] {
  const runs: FontRun[] = [];
  let current: FontRun | undefined;
  for (const { segment } of graphemes.segment(text)) {
    let family: string | undefined;
    let missing = false;
    if (
      current &&
      !current.missing &&
      NEUTRAL.test(segment) &&
      covers(openFont(current.family, weight), segment)
    ) {
      family = current.family;
    } else if (SPACE.test(segment)) {
      // Line breaks and tabs: no glyph is drawn for them, whatever the font.
      family = current && !current.missing ? current.family : BASE_FAMILY;
    } else {
      family = firstCovering(segment, weight);
      if (!family) {
        family = BASE_FAMILY;
        missing = true;
      }
    }
    if (current && current.family === family && current.missing === missing) current.text += segment;
    else {
      current = { text: segment, family, missing };
      runs.push(current);
    }
  }
  return runs;
}

/** The characters of `text` no bundled font has (for a warning), at most `limit` of them. */
export function missingCharacters(text: string, limit = 5): string[] {
  const found = new Set<string>();
  for (const run of fontRuns(text, 400)) {
    if (!run.missing) continue;
    for (const { segment } of graphemes.segment(run.text)) {
      found.add(segment);
      if (found.size >= limit) return [...found];
    }
  }
  return [...found];
}

const advances = new Map<string, Map<number, number>>();
/** A character's advance in em (cached: fontkit's full shaping costs ~0.2 ms a word). */
function advance(family: string, weight: FontWeight, code: number): number {
  const key = `${family}/${weight}`;
  let table = advances.get(key);
  if (!table) {
    table = new Map();
    advances.set(key, table);
  }
  let width = table.get(code);
  if (width === undefined) {
    const font = openFont(family, weight);
    width = font.glyphForCodePoint(code).advanceWidth / font.unitsPerEm;
    table.set(code, width);
  }
  return width;
}

// Scripts whose shaping changes widths (joined forms): measured by shaping the run.
const SHAPED = new Set(['Noto Sans Arabic']);

/**
 * How wide `text` is, in the units of `size` (px or pt). Character advances without kerning (a
 * hair wider than the shaped text the renderers draw, so a line measured to fit does fit); Arabic
 * runs shaped as drawn.
 */
export function textWidth(text: string, size: number, weight: FontWeight): number {
  let width = 0;
  for (const run of fontRuns(text, weight)) {
    if (SHAPED.has(run.family)) {
      const font = openFont(run.family, weight);
      width += font.layout(run.text).advanceWidth / font.unitsPerEm;
      continue;
    }
    for (const char of run.text) {
      const code = char.codePointAt(0) ?? 0;
      if (!JOINERS.has(code)) width += advance(run.family, weight, code);
    }
  }
  return width * size;
}

/** The base font's ascent (above the baseline) as a share of the font size. */
export function ascentRatio(weight: FontWeight): number {
  const font = openFont(BASE_FAMILY, weight);
  return font.ascent / font.unitsPerEm;
}
