import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import * as pptxgenjs from 'pptxgenjs';
import { ExportFailed, type RenderedExport, type RenderRequest } from '../../domain/ports/deck-exporter.ts';
import { imageLabel, type LayoutPage, type Palette, type TextBox } from './layout/boxes.ts';
import { layoutDeck } from './layout.ts';

/** Page pixels (1920 wide) to inches: PowerPoint's wide layout, 13.33 × 7.5 in. */
const IN = 1 / 144;
/** Page pixels to points (a 960 pt wide slide). */
const PT = 0.5;
/** What PowerPoint shows as a picture (WebP and SVG need more than pptxgenjs gives). */
const PICTURES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif' };

// The package's types are CommonJS-shaped; its ES module's default export is the class.
type PptxClass = typeof pptxgenjs.default.default;
const PptxGenJS = pptxgenjs.default as unknown as PptxClass;
type Slide = ReturnType<InstanceType<typeof PptxGenJS>['addSlide']>;
const colour = (hex: string) => hex.replace('#', '').toUpperCase();

/**
 * The deck as PowerPoint (pptxgenjs; decision 075): a 16:9 slide per layout page, every text a
 * text box a person can edit, the narration script as the speaker notes, the narration MP3
 * embedded and started with the slide, the palette as the theme's colours.
 */
export async function renderPptx(request: RenderRequest): Promise<RenderedExport> {
  const { snapshot, signal } = request;
  signal.throwIfAborted();
  const layout = layoutDeck(snapshot);
  const warnings = [...layout.warnings];
  const pptx = new PptxGenJS();
  pptx.layout = 'LAYOUT_WIDE';
  pptx.title = snapshot.deckName;
  pptx.company = snapshot.branding?.name ?? '';
  const first = layout.pages[0]?.boxes.find((b): b is TextBox => b.kind === 'text');
  pptx.theme = {
    headFontFace: first?.brandFont ?? first?.family ?? 'Noto Sans',
    bodyFontFace: first?.family ?? 'Noto Sans',
  };
  const withAudio: number[] = [];
  for (const [i, page] of layout.pages.entries()) {
    signal.throwIfAborted();
    const slide = pptx.addSlide();
    drawPage(slide, page, warnings);
    if (page.script) slide.addNotes(page.script);
    if (page.audioPath) {
      try {
        // A small speaker in the corner; it starts when the slide does (timing added below).
        slide.addMedia({
          type: 'audio',
          data: `audio/mpeg;base64,${readFileSync(page.audioPath).toString('base64')}`,
          extn: 'mp3',
          x: 13.333 - 0.7,
          y: 7.5 - 0.7,
          w: 0.5,
          h: 0.5,
        });
        withAudio.push(i + 1);
      } catch {
        warnings.push(`${page.name}: its narration audio could not be read: left out`);
      }
    }
    request.onProgress(i + 1, layout.pages.length);
    await new Promise((resolve) => setImmediate(resolve));
  }
  signal.throwIfAborted();
  let bytes: Uint8Array;
  try {
    const written = (await pptx.write({ outputType: 'uint8array', compression: true })) as Uint8Array;
    bytes = finish(written, layout.palette, withAudio);
  } catch (error) {
    throw new ExportFailed('the PowerPoint file could not be written', { cause: error });
  }
  const filePath = join(request.workDir, 'deck.pptx');
  await writeFile(filePath, bytes, { signal });
  return {
    filePath,
    contentType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    extension: 'pptx',
    warnings,
  };
}

function drawPage(slide: Slide, page: LayoutPage, warnings: string[]): void {
  slide.background = { color: colour(page.background) };
  for (const box of page.boxes) {
    const place = { x: box.x * IN, y: box.y * IN, w: box.w * IN, h: box.h * IN };
    if (box.kind === 'rect') {
      slide.addShape(box.radius > 0 ? 'roundRect' : 'rect', {
        ...place,
        fill: { color: colour(box.fill) },
        line: box.stroke ? { color: colour(box.stroke), width: 1 } : { type: 'none' },
        rectRadius: box.radius * IN,
        ...(box.link ? { hyperlink: { url: box.link } } : {}),
      });
    } else if (box.kind === 'image') {
      const type = PICTURES[box.format];
      if (!type) {
        warnings.push(
          `${imageLabel(page, box)} (${box.format}) left out of the PowerPoint, which shows PNG, JPEG and GIF`,
        );
        continue;
      }
      slide.addImage({ ...place, data: `${type};base64,${readFileSync(box.path).toString('base64')}` });
    } else {
      slide.addText(box.text, {
        ...place,
        fontFace: box.brandFont ?? box.family,
        fontSize: box.fontSize * PT,
        bold: box.weight === 700,
        color: colour(box.color),
        align: box.align,
        valign: box.valign,
        rtlMode: box.rtl,
        lineSpacing: box.lineHeight * PT,
        margin: 0,
        wrap: true,
        fit: 'none',
        ...(box.link ? { hyperlink: { url: box.link } } : {}),
      });
    }
  }
}

/**
 * What pptxgenjs does not write, added to its package: the palette as the theme's colour scheme,
 * and on each slide with narration the timing that starts its audio with the slide.
 */
function finish(pptx: Uint8Array, palette: Palette, withAudio: number[]): Uint8Array {
  const files = unzipSync(pptx);
  const themePath = 'ppt/theme/theme1.xml';
  const theme = files[themePath];
  if (theme) {
    const c = (hex: string) => `<a:srgbClr val="${colour(hex)}"/>`;
    const scheme =
      `<a:clrScheme name="Deck"><a:dk1>${c(palette.text)}</a:dk1><a:lt1>${c('#FFFFFF')}</a:lt1>` +
      `<a:dk2>${c(palette.primary)}</a:dk2><a:lt2>${c(palette.neutral)}</a:lt2>` +
      `<a:accent1>${c(palette.primary)}</a:accent1><a:accent2>${c(palette.accent)}</a:accent2>` +
      `<a:accent3>${c(palette.primaryLight)}</a:accent3><a:accent4>${c(palette.text)}</a:accent4>` +
      `<a:accent5>${c(palette.neutral)}</a:accent5><a:accent6>${c(palette.accent)}</a:accent6>` +
      `<a:hlink>${c(palette.primary)}</a:hlink><a:folHlink>${c(palette.primary)}</a:folHlink></a:clrScheme>`;
    const xml = strFromU8(theme);
    const start = xml.indexOf('<a:clrScheme');
    const end = xml.indexOf('</a:clrScheme>');
    if (start >= 0 && end > start)
      files[themePath] = strToU8(xml.slice(0, start) + scheme + xml.slice(end + '</a:clrScheme>'.length));
  }
  for (const n of withAudio) {
    const path = `ppt/slides/slide${n}.xml`;
    const xml = files[path] && strFromU8(files[path]);
    // The audio's shape: the picture pptxgenjs writes for the media. It numbers it as a shape
    // already numbered, so it gets an id of its own first (the timing names it by id).
    const media = xml?.match(/<p:cNvPr id="\d+" name="Media /);
    if (!xml || !media || media.index === undefined) continue;
    const ids = Array.from(xml.matchAll(/<p:cNvPr id="(\d+)"/g), (m) => Number(m[1]));
    const id = String(Math.max(...ids) + 1);
    const renumbered = `${xml.slice(0, media.index)}<p:cNvPr id="${id}" name="Media ${xml.slice(media.index + media[0].length)}`;
    files[path] = strToU8(renumbered.replace('</p:sld>', `${autoplay(id)}</p:sld>`));
  }
  return zipSync(files);
}

/** The timing PowerPoint writes for audio set to start automatically, and stop at the slide's end. */
function autoplay(id: string): string {
  return (
    '<p:timing><p:tnLst><p:par><p:cTn id="1" dur="indefinite" restart="never" nodeType="tmRoot"><p:childTnLst>' +
    '<p:par><p:cTn id="2" fill="hold"><p:stCondLst><p:cond delay="indefinite"/><p:cond evt="onBegin" delay="0"><p:tn val="2"/></p:cond></p:stCondLst><p:childTnLst>' +
    '<p:par><p:cTn id="3" fill="hold"><p:stCondLst><p:cond delay="0"/></p:stCondLst><p:childTnLst>' +
    '<p:par><p:cTn id="4" presetID="1" presetClass="mediacall" presetSubtype="0" fill="hold" nodeType="afterEffect"><p:stCondLst><p:cond delay="0"/></p:stCondLst><p:childTnLst>' +
    `<p:cmd type="call" cmd="playFrom(0.0)"><p:cBhvr><p:cTn id="5" dur="1" fill="hold"/><p:tgtEl><p:spTgt spid="${id}"/></p:tgtEl></p:cBhvr></p:cmd>` +
    '</p:childTnLst></p:cTn></p:par></p:childTnLst></p:cTn></p:par></p:childTnLst></p:cTn></p:par>' +
    `<p:audio><p:cMediaNode vol="80000"><p:cTn id="6" fill="hold" display="0"><p:stCondLst><p:cond delay="indefinite"/></p:stCondLst>` +
    `<p:endCondLst><p:cond evt="onStopAudio" delay="0"><p:tgtEl><p:sldTgt/></p:tgtEl></p:cond></p:endCondLst></p:cTn>` +
    `<p:tgtEl><p:spTgt spid="${id}"/></p:tgtEl></p:cMediaNode></p:audio>` +
    '</p:childTnLst></p:cTn></p:par></p:tnLst></p:timing>'
  );
}
