import { readFileSync } from 'node:fs';
import { Resvg } from '@resvg/resvg-js';
import { FAMILIES, type FontRun, type FontWeight, fontRuns, openFont, textWidth } from './fonts.ts';
import { type ImageBox, imageLabel, type LayoutPage, PAGE, type TextBox } from './layout/boxes.ts';
import { baselineOf, lineStartOf } from './layout/text.ts';

/**
 * One page of the layout drawn as a 1920×1080 PNG, for the video (decision 076): the page's boxes
 * written as SVG and drawn by resvg with the bundled fonts only (no system font, so every machine
 * draws the same frame). Each run of a line (fonts.ts: the chain's first font that has its
 * glyphs) is its own `<text>`, placed where the layout measured it: resvg drops a whole `<text>`
 * whose `<tspan>`s mix fonts around some emoji sequences, so one run's trouble never takes the
 * line with it. A character no bundled font has draws as the base font's missing-glyph box.
 */

/** The image formats resvg draws (it leaves out others silently, so they are named here). */
const DRAWN: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif' };

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/**
 * `text` as SVG character data. Characters XML 1.0 does not allow (controls, lone surrogates,
 * U+FFFE/U+FFFF) become U+FFFD: an SVG holding one does not parse. One pass over the text.
 */
export function xml(text: string): string {
  let out = '';
  for (const char of text.toWellFormed()) {
    const code = char.codePointAt(0) ?? 0;
    if (
      (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) ||
      code === 0xfffe ||
      code === 0xffff
    )
      out += '\uFFFD';
    else out += XML_ESCAPES[char] ?? char;
  }
  return out;
}

/** How each image of a deck is drawn (the logo is on every page: read and checked once). */
export class FrameImages {
  private readonly known = new Map<string, string | null>();

  /** The image as a data URL resvg draws, or null (and a warning) when it cannot be drawn. */
  dataUrl(box: ImageBox, page: LayoutPage, warnings: string[]): string | null {
    const key = `${box.format}:${box.path}`;
    if (!this.known.has(key)) this.known.set(key, this.load(box));
    const url = this.known.get(key) ?? null;
    if (url === null) {
      const label = imageLabel(page, box);
      warnings.push(
        box.format in DRAWN
          ? `${label} does not decode as an image: left out of the video`
          : `${label} (${box.format}) left out of the video, which shows PNG, JPEG and GIF`,
      );
    }
    return url;
  }

  private load(box: ImageBox): string | null {
    const mime = DRAWN[box.format];
    if (!mime) return null;
    let url: string;
    try {
      url = `data:${mime};base64,${readFileSync(box.path).toString('base64')}`;
    } catch {
      return null;
    }
    // resvg leaves out an image it cannot decode without a word: drawn alone, small, first. An
    // image that decodes to nothing but transparency is left out too (it would show nothing).
    const probe = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><image width="16" height="16" preserveAspectRatio="none" href="${url}"/></svg>`;
    try {
      const pixels = new Resvg(probe, { logLevel: 'off', font: { loadSystemFonts: false } }).render().pixels;
      for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) return url;
    } catch {
      // Not an image resvg decodes.
    }
    return null;
  }
}

const EMOJI_FAMILY = FAMILIES.find((f) => f.covers.startsWith('emoji'))?.family;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * A run's width as resvg draws it: shaped by fontkit in the run's font (kerning, ligatures such as
 * an emoji family or a flag), so the next run starts where this one ends.
 */
function shapedWidth(run: FontRun, box: TextBox): number {
  try {
    const font = openFont(run.family, box.weight);
    if (run.family === EMOJI_FAMILY) {
      // resvg draws each emoji sequence (skin tone, family, flag) as its first emoji's glyph, and
      // the next run is placed after a space as wide as the text's (the emoji font's is 1.27 em).
      let width = 0;
      for (const { segment } of graphemes.segment(run.text)) {
        width +=
          segment.trim() === ''
            ? textWidth(segment, box.fontSize, box.weight)
            : (font.glyphForCodePoint(segment.codePointAt(0) ?? 0).advanceWidth / font.unitsPerEm) *
              box.fontSize;
      }
      return width;
    }
    return (font.layout(run.text).advanceWidth / font.unitsPerEm) * box.fontSize;
  } catch {
    return textWidth(run.text, box.fontSize, box.weight);
  }
}

function textSvg(box: TextBox, used: Set<string>): string {
  const parts: string[] = [];
  for (const [i, line] of box.lines.entries()) {
    const runs = fontRuns(line, box.weight).map((run) => ({ run, width: shapedWidth(run, box) }));
    let x = lineStartOf(
      box,
      runs.reduce((sum, r) => sum + r.width, 0),
    );
    const y = baselineOf(box, i);
    for (const { run, width: runWidth } of runs) {
      if (run.text.trim() !== '') {
        used.add(`${run.family}/${box.weight}`);
        parts.push(
          `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" font-family="${xml(run.family)}" font-size="${box.fontSize}" font-weight="${box.weight}" fill="${xml(box.color)}" xml:space="preserve">${xml(run.text)}</text>`,
        );
      }
      x += runWidth;
    }
  }
  return parts.join('');
}

/** The page as SVG, and the fonts it draws with (`family/weight`). */
export function pageSvg(
  page: LayoutPage,
  images: FrameImages,
  warnings: string[],
): { svg: string; fonts: Set<string> } {
  const used = new Set<string>();
  const body: string[] = [
    `<rect width="${PAGE.width}" height="${PAGE.height}" fill="${xml(page.background)}"/>`,
  ];
  for (const box of page.boxes) {
    if (box.kind === 'rect') {
      const stroke = box.stroke ? ` stroke="${xml(box.stroke)}" stroke-width="2"` : '';
      body.push(
        `<rect x="${box.x}" y="${box.y}" width="${box.w}" height="${box.h}" rx="${box.radius}" fill="${xml(box.fill)}"${stroke}/>`,
      );
    } else if (box.kind === 'image') {
      const url = images.dataUrl(box, page, warnings);
      if (url)
        body.push(
          `<image x="${box.x}" y="${box.y}" width="${box.w}" height="${box.h}" preserveAspectRatio="none" href="${url}"/>`,
        );
    } else body.push(textSvg(box, used));
  }
  return {
    svg: `<svg xmlns="http://www.w3.org/2000/svg" width="${PAGE.width}" height="${PAGE.height}" viewBox="0 0 ${PAGE.width} ${PAGE.height}">${body.join('')}</svg>`,
    fonts: used,
  };
}

function fontFilesFor(used: Set<string>): string[] {
  const files: string[] = [];
  for (const family of FAMILIES) {
    for (const weight of [400, 700] as FontWeight[])
      if (used.has(`${family.family}/${weight}`)) files.push(family.files[weight]);
  }
  return files;
}

/**
 * The page as PNG bytes. resvg reads only the font files the page uses (Noto Sans SC alone is
 * 10 MB a weight: most pages never load it).
 */
export function drawFrame(page: LayoutPage, images: FrameImages, warnings: string[]): Buffer {
  const { svg, fonts } = pageSvg(page, images, warnings);
  const resvg = new Resvg(svg, {
    logLevel: 'off',
    fitTo: { mode: 'original' },
    font: { loadSystemFonts: false, fontFiles: fontFilesFor(fonts), defaultFontFamily: FAMILIES[0]!.family },
  });
  return resvg.render().asPng();
}
