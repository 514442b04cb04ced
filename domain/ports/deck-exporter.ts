import type { BrandingOutput } from '../branding/branding-output.ts';
import type { ProductData } from '../slides/product-data.ts';

export type ExportFormat = 'pptx' | 'pdf' | 'mp4';

/** One slide as the export shows it: its fields, and its image and narration as local files. */
export interface ExportSlide {
  /** The slide's uuid. */
  id: string;
  /** `slide-<n>`. */
  slideId: string;
  title: string | null;
  bullets: string[];
  slideContext: string | null;
  narrationScript: string | null;
  slideType: 'standard' | 'product_pricing_v1';
  productData: ProductData | null;
  /** The hero image's bytes in the work directory; null when it has none or it could not be read. */
  heroImagePath: string | null;
  /** The slide's narration (the generation job's, else its `audioUrl`) as an MP3 file; null when none. */
  audioPath: string | null;
}

/**
 * The deck as it was when its export's work started (read in one transaction, api.md "Deck
 * export"), with the objects it shows copied into the work directory, so a renderer reads only
 * local files and never the object store.
 */
export interface DeckSnapshot {
  deckName: string;
  branding: BrandingOutput | null;
  /** The branding's logo as a local file; null when none or unreadable. */
  logoPath: string | null;
  intro: { title: string | null; script: string; audioPath: string | null } | null;
  slides: ExportSlide[];
  /** Empty when the export was asked with `includeFaqs: false`. */
  faqs: { question: string; answer: string; audioPath: string | null }[];
}

/** One export's rendering. */
export interface RenderRequest {
  format: ExportFormat;
  snapshot: DeckSnapshot;
  /** mp4: a WebVTT file beside the video and a subtitle track in it. */
  captions: boolean;
  /** A directory of this export's own, where the renderer writes its files (removed afterwards). */
  workDir: string;
  /** After each page (intro, slide, FAQ, closing): how many are done of how many. */
  onProgress(done: number, total: number): void;
  /** Aborts when the export is canceled or its instance stops: the renderer stops soon after. */
  signal: AbortSignal;
}

export interface RenderedExport {
  /** The file, in `workDir`. */
  filePath: string;
  contentType: string;
  extension: ExportFormat;
  /** mp4 with captions: the WebVTT file, in `workDir`. */
  captionsPath?: string;
  /** What could not be rendered and was left out or replaced (an image that does not decode, …). */
  warnings: string[];
}

/**
 * Renders a deck's snapshot to a file a person opens without the service: PowerPoint, PDF or a
 * narrated video (adapters/export/). CPU work: it runs off the event loop, bounded in memory.
 */
export interface DeckExporter {
  render(request: RenderRequest): Promise<RenderedExport>;
  /** Stops what it keeps running, at shutdown. */
  close?(): Promise<void>;
}

/** What cannot be rendered at all (never an image or a glyph: those are warnings). */
export class ExportFailed extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ExportFailed';
  }
}
