import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPdf } from '../adapters/export/render-pdf.ts';
import { renderPptx } from '../adapters/export/render-pptx.ts';
import type { DeckSnapshot, RenderedExport, RenderRequest } from '../domain/ports/deck-exporter.ts';
import type { ProductData } from '../domain/slides/product-data.ts';
import { acmeSnapshotBranding, exportSlide, q4Pitch, speakAll } from './helpers/export-deck.ts';
import { png } from './helpers/files.ts';

/**
 * The PDF and PowerPoint renderers (issue 39), each run on a deck built here with real images and
 * real narration MP3s (espeak-ng), and their files read by independent tools: poppler's pdfinfo,
 * pdftotext and pdffonts, qpdf's JSON (bookmarks, links), LibreOffice (prints the PPTX), and the
 * PPTX package unzipped (notes, media, theme).
 */
const run = promisify(execFile);
const tool = async (program: string, args: string[]) =>
  (await run(program, args, { maxBuffer: 64 << 20 })).stdout;
/** pdftotext's words, one space between each (a line break of the layout is a space). */
const words = (text: string) => text.replace(/\s+/g, ' ');

let dir: string;
let deck: DeckSnapshot;
const scripts = {
  intro: 'Welcome to the tour of our platform.',
  slide: 'We ship in days, not months.',
  faq: 'Yes, thirty days and no card is needed.',
};

const pricing: ProductData = {
  good: {
    name: 'Starter',
    price: 19,
    currency: 'USD',
    billingPeriod: 'month',
    features: ['One workspace', 'Email support'],
  },
  better: {
    name: 'Growth',
    price: 49.5,
    currency: 'USD',
    billingPeriod: 'month',
    features: ['Ten workspaces', 'Chat support'],
  },
  best: {
    name: 'Scale',
    price: 1200,
    currency: 'EUR',
    billingPeriod: 'year',
    features: ['Unlimited workspaces', 'A named engineer'],
    ctaText: 'Talk to sales',
  },
  subtitle: 'Plans that grow with you',
  disclaimer: 'Prices exclude VAT.',
  defaultSelectedTier: 'better',
};

/** Every text the deck shows that a reader must find in the PDF (or the printed PPTX). */
const expectedTexts = [
  'Q4 pitch',
  'Welcome to Acme',
  'Why us',
  'Fast delivery in days',
  'Support that answers within the hour',
  'Our customers ship twice as fast.',
  'Broken picture',
  'Pricing',
  'Plans that grow with you',
  'Starter',
  '$19.00',
  'Growth',
  '$49.50',
  'Scale',
  '€1,200.00',
  'Recommended',
  'Ten workspaces',
  'Prices exclude VAT.',
  'Is there a free trial?',
  scripts.faq,
  'Can we keep our own domain? Yes: point a CNAME at us.',
  'Start your trial today',
  'Book a demo',
  'sales@acme.example',
];

function request(
  format: 'pdf' | 'pptx',
  snapshot: DeckSnapshot,
  workDir: string,
  progress: number[][] = [],
): RenderRequest {
  return {
    format,
    snapshot,
    captions: false,
    workDir,
    onProgress: (done, total) => progress.push([done, total]),
    signal: new AbortController().signal,
  };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'export-documents-'));
  const mp3 = await speakAll(dir, scripts);
  const hero = path.join(dir, 'hero');
  await writeFile(hero, png(640, 360));
  const broken = path.join(dir, 'broken');
  await writeFile(broken, png(640, 360).subarray(0, 200));
  const logo = path.join(dir, 'logo');
  await writeFile(logo, png(200, 80));
  deck = q4Pitch({ scripts, mp3 }, hero, {
    branding: acmeSnapshotBranding('logo.png'),
    logoPath: logo,
    moreSlides: [
      exportSlide(2, {
        title: 'Broken picture',
        bullets: ['Docs at https://acme.example/docs today'],
        heroImagePath: broken,
      }),
      exportSlide(3, { title: 'Pricing', slideType: 'product_pricing_v1', productData: pricing }),
    ],
    faqs: [
      { question: 'Is there a free trial?', answer: scripts.faq, audioPath: mp3.faq },
      { question: 'Can we keep our own domain?', answer: 'Yes: point a CNAME at us.', audioPath: null },
    ],
  });
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** intro, 3 slides, 2 FAQs, closing. */
const PAGES = 7;
const TITLES = [
  'Welcome to Acme',
  'Why us',
  'Broken picture',
  'Pricing',
  'Is there a free trial?',
  'Can we keep our own domain?',
  'Start your trial today',
];

describe('PDF export', () => {
  let pdf: RenderedExport;
  const progress: number[][] = [];
  beforeAll(async () => {
    pdf = await renderPdf(request('pdf', deck, await mkdtemp(path.join(dir, 'pdf-')), progress));
  });

  it('has one 16:9 page per page, reports progress after each, and names the broken image', async () => {
    const info = await tool('pdfinfo', [pdf.filePath]);
    expect(info).toMatch(new RegExp(`^Pages:\\s+${PAGES}$`, 'm'));
    const [, w, h] = info.match(/^Page size:\s+([\d.]+) x ([\d.]+) pts/m) ?? [];
    expect(Number(w) / Number(h)).toBeCloseTo(16 / 9, 3);
    expect(progress).toEqual(Array.from({ length: PAGES }, (_, i) => [i + 1, PAGES]));
    expect(pdf.warnings).toEqual([expect.stringMatching(/^slide-2: the hero image does not decode/)]);
    expect(pdf.contentType).toBe('application/pdf');
  });

  it('holds every text as searchable text in embedded fonts', async () => {
    const text = words(await tool('pdftotext', [pdf.filePath, '-']));
    for (const expected of expectedTexts) expect(text).toContain(expected);
    const fonts = (await tool('pdffonts', [pdf.filePath])).split('\n').slice(2).filter(Boolean);
    expect(fonts.length).toBeGreaterThan(0);
    // name type encoding emb sub uni object ID: every font embedded.
    for (const line of fonts) expect(line).toMatch(/\s+yes\s+yes\s+yes\s+\d+\s+\d+\s*$/);
  });

  it('has a bookmark per page and clickable links (the CTA button, a URL in a bullet, the e-mail)', async () => {
    const json = JSON.parse(
      await tool('qpdf', ['--json=2', '--json-key=outlines', '--json-key=qpdf', pdf.filePath]),
    );
    const outlines = (json.outlines as { title: string }[]).map((o) => o.title);
    expect(outlines).toEqual(TITLES);
    // qpdf's JSON: every object as "obj:N 0 R"; a reference is the string "N 0 R".
    const objects = json.qpdf[1] as Record<string, { value?: unknown }>;
    const deref = (v: unknown) =>
      (typeof v === 'string' && /^\d+ \d+ R$/.test(v) ? objects[`obj:${v}`]?.value : v) as
        | Record<string, unknown>
        | undefined;
    const uris = Object.values(objects)
      .map((o) => deref(o.value))
      .filter((v) => v?.['/Subtype'] === '/Link')
      .map((v) => String(deref(v?.['/A'])?.['/URI'] ?? '').replace(/^[ub]:/, ''));
    expect(uris).toEqual(
      expect.arrayContaining([
        'https://acme.example/demo',
        'https://acme.example/docs',
        'mailto:sales@acme.example',
        'tel:+15550100',
      ]),
    );
  });
});

describe('PPTX export', () => {
  let pptx: RenderedExport;
  let files: Record<string, Uint8Array>;
  const progress: number[][] = [];
  const xml = (name: string) => strFromU8(files[name] ?? new Uint8Array());
  beforeAll(async () => {
    pptx = await renderPptx(request('pptx', deck, await mkdtemp(path.join(dir, 'pptx-')), progress));
    files = unzipSync(await readFile(pptx.filePath));
  });

  it('has a slide per page, every text editable, the palette as its theme', () => {
    const slides = Object.keys(files).filter((f) => /^ppt\/slides\/slide\d+\.xml$/.test(f));
    expect(slides).toHaveLength(PAGES);
    expect(progress).toEqual(Array.from({ length: PAGES }, (_, i) => [i + 1, PAGES]));
    for (const [i, title] of TITLES.entries())
      expect(xml(`ppt/slides/slide${i + 1}.xml`)).toContain(`<a:t>${title}</a:t>`);
    expect(xml('ppt/presentation.xml')).toMatch(/<p:sldSz cx="12192000" cy="6858000"/);
    expect(xml('ppt/theme/theme1.xml')).toContain('<a:accent1><a:srgbClr val="0B5FFF"/></a:accent1>');
    // The CTA button's link (in the slide's relationships).
    expect(xml('ppt/slides/_rels/slide7.xml.rels')).toContain('Target="https://acme.example/demo"');
    expect(pptx.warnings).toEqual([expect.stringMatching(/^slide-2: the hero image does not decode/)]);
  });

  it('holds each narration script as its slide notes and each narration as audio that starts with its slide', async () => {
    const notes = Object.keys(files)
      .filter((f) => /^ppt\/notesSlides\/notesSlide\d+\.xml$/.test(f))
      .map(xml)
      .join('\n');
    for (const script of Object.values(scripts)) expect(notes).toContain(script);
    const media = Object.keys(files).filter((f) => /^ppt\/media\/.*\.mp3$/.test(f));
    expect(media).toHaveLength(3);
    const original = await readFile(deck.intro?.audioPath ?? '');
    expect(media.some((m) => Buffer.from(files[m] ?? []).equals(original))).toBe(true);
    // intro (1), slide-1 (2), the first FAQ (5): their audio starts with the slide.
    for (const n of [1, 2, 5]) expect(xml(`ppt/slides/slide${n}.xml`)).toMatch(/<p:audio><p:cMediaNode/);
    expect(xml('ppt/slides/slide3.xml')).not.toContain('<p:audio>');
  });

  it('opens in LibreOffice, which prints one page per slide with every text', async () => {
    const out = await mkdtemp(path.join(dir, 'soffice-'));
    await run(
      'soffice',
      [
        `-env:UserInstallation=${pathToFileURL(path.join(out, 'profile')).href}`,
        '--headless',
        '--convert-to',
        'pdf',
        '--outdir',
        out,
        pptx.filePath,
      ],
      { timeout: 120_000 },
    );
    const printed = path.join(out, 'deck.pdf');
    expect(await tool('pdfinfo', [printed])).toMatch(new RegExp(`^Pages:\\s+${PAGES}$`, 'm'));
    const text = words(await tool('pdftotext', [printed, '-']));
    for (const expected of expectedTexts) expect(text).toContain(expected);
  }, 120_000);
});

describe('any script, any length', () => {
  const hostile = (): DeckSnapshot => ({
    ...deck,
    intro: {
      title: 'Привет, мир — Γειά σου κόσμε',
      script: 'Long narration. '.repeat(1250),
      audioPath: null,
    },
    slides: [
      {
        ...(deck.slides[0] as DeckSnapshot['slides'][number]),
        title: '中文标题 ひらがな 한국어',
        bullets: [
          'مرحبا بالعالم',
          'שלום עולם',
          'Emoji 😀👍🏽👨‍👩‍👧 done',
          '这是一个很长的中文句子'.repeat(40),
        ],
        slideContext: 'Context. '.repeat(2500),
        narrationScript: 'Спасибо. '.repeat(2200),
      },
    ],
    faqs: [],
  });

  it('renders Cyrillic, Greek, CJK, Arabic, Hebrew and emoji, and names what no bundled font has', async () => {
    const snapshot = hostile();
    const pdf = await renderPdf(request('pdf', snapshot, await mkdtemp(path.join(dir, 'hostile-pdf-'))));
    const text = words(await tool('pdftotext', [pdf.filePath, '-']));
    for (const expected of ['Привет, мир', 'Γειά σου κόσμε', '中文标题', 'ひらがな', 'Emoji'])
      expect(text).toContain(expected);
    // Hangul is in none of the bundled fonts: drawn as a box, and said.
    expect(pdf.warnings).toContain('slide-1: no bundled font has 한 국 어 (drawn as a box)');
    const pptx = await renderPptx(request('pptx', snapshot, await mkdtemp(path.join(dir, 'hostile-pptx-'))));
    const files = unzipSync(await readFile(pptx.filePath));
    const notes = strFromU8(files['ppt/notesSlides/notesSlide2.xml'] ?? new Uint8Array());
    expect(notes).toContain(snapshot.slides[0]?.narrationScript?.trim());
    expect(strFromU8(files['ppt/slides/slide2.xml'] ?? new Uint8Array())).toContain('<a:t>שלום עולם</a:t>');
  });

  it('stops when the export is canceled', async () => {
    for (const render of [renderPdf, renderPptx]) {
      const controller = new AbortController();
      const progress: number[] = [];
      const work = render({
        ...request('pdf', deck, await mkdtemp(path.join(dir, 'cancel-'))),
        onProgress: (done) => {
          progress.push(done);
          controller.abort(new Error('canceled'));
        },
        signal: controller.signal,
      });
      await expect(work).rejects.toThrow('canceled');
      expect(progress).toEqual([1]);
    }
  });
});
