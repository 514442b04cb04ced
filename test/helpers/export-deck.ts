import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createLocalSpeechEngine } from '../../adapters/speech/local-speech.ts';
import type { DeckSnapshot, ExportSlide } from '../../domain/ports/deck-exporter.ts';

/**
 * The deck the export tests and benchmarks render (test/export-*.test.ts, bench/bench-video.ts,
 * bench/bench-export.ts): one brand, the slide every one of them has, narration spoken for real.
 */

/** The brand, as `PUT /decks/{deckId}/branding` takes it (without a logo). */
export const ACME_BRANDING = {
  name: 'Acme',
  palette: {
    primary: '#0B5FFF',
    primaryLight: '#E6EEFF',
    accent: '#FFB000',
    neutral: '#F2F4F7',
    text: '#1D2939',
  },
  cta: {
    headline: 'Start your trial today',
    body: 'Thirty days, every feature.',
    buttonText: 'Book a demo',
    buttonUrl: 'https://acme.example/demo',
  },
  contact: { email: 'sales@acme.example', phone: '+1 555 0100' },
};

/** The brand as a deck snapshot carries it; `logo`: the name of its logo, if it has one. */
export function acmeSnapshotBranding(logo: string | null = null): NonNullable<DeckSnapshot['branding']> {
  return {
    ...ACME_BRANDING,
    logo,
    avatar: null,
    chatName: null,
    chatGreeting: null,
    fonts: null,
    updatedAt: new Date().toISOString(),
  };
}

/** A standard slide `n` with nothing but what `fields` give it. */
export function exportSlide(n: number, fields: Partial<ExportSlide>): ExportSlide {
  return {
    id: String(n),
    slideId: `slide-${n}`,
    title: null,
    bullets: [],
    slideContext: null,
    narrationScript: null,
    slideType: 'standard',
    productData: null,
    heroImagePath: null,
    audioPath: null,
    ...fields,
  };
}

/**
 * The tests' deck, "Q4 pitch": its intro and first slide ("Why us", with a hero image) narrated,
 * then the slides and FAQs each test adds.
 */
export function q4Pitch(
  narration: { scripts: { intro: string; slide: string }; mp3: { intro: string; slide: string } },
  heroImagePath: string,
  rest: Pick<DeckSnapshot, 'branding' | 'logoPath' | 'faqs'> & { moreSlides: ExportSlide[] },
): DeckSnapshot {
  const { scripts, mp3 } = narration;
  return {
    deckName: 'Q4 pitch',
    branding: rest.branding,
    logoPath: rest.logoPath,
    intro: { title: 'Welcome to Acme', script: scripts.intro, audioPath: mp3.intro },
    slides: [
      exportSlide(1, {
        title: 'Why us',
        bullets: ['Fast delivery in days', 'Support that answers within the hour'],
        slideContext: 'Our customers ship twice as fast.',
        narrationScript: scripts.slide,
        heroImagePath,
        audioPath: mp3.slide,
      }),
      ...rest.moreSlides,
    ],
    faqs: rest.faqs,
  };
}

/** Each text spoken by espeak-ng into `dir` (`<name>.mp3`): what a narration job leaves. */
export async function speakAll<Name extends string>(
  dir: string,
  texts: Record<Name, string>,
  maxBytes = 1 << 20,
): Promise<Record<Name, string>> {
  const engine = createLocalSpeechEngine({ concurrency: 1, timeoutMs: 60_000, previewUrl: () => '' });
  const files = {} as Record<Name, string>;
  try {
    for (const [name, text] of Object.entries(texts) as [Name, string][]) {
      const mp3 = await engine.synthesize(text, engine.defaultVoiceId, { organizationId: 'test', maxBytes });
      files[name] = path.join(dir, `${name}.mp3`);
      await writeFile(files[name], mp3);
    }
  } finally {
    await engine.close();
  }
  return files;
}

/** A video's length in seconds, as ffprobe (Debian's ffmpeg package) reads it. */
export function videoSeconds(file: string): number {
  const out = execFileSync('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'format=duration',
    '-of',
    'csv=p=0',
    file,
  ]);
  return Number(out.toString().trim());
}
