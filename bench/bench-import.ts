/**
 * Contract import on real documents: imports every document of the corpus
 * (test/fixtures/contracts-corpus: public templates and filled-in contracts, with the variables a
 * person would mark, see its README.md) as DOCX and as the PDF LibreOffice prints from it, over
 * HTTP to the real service, and scores the answers against the manifest.
 *
 *   npm run bench:import                       # the committed corpus
 *   npm run bench:import -- --only accord-saft # one document
 *   npm run bench:import -- --corpus DIR --json result.json   # every figure, with what was missed
 *
 * The service measured is the one of the current directory's checkout (the script may be run
 * from another worktree: `cd ../wt-x && npx node ../wt-corpus/bench/bench-import.ts`, Node 24); the corpus
 * defaults to the one beside this script.
 *
 * Scoring (per document, then micro-averaged over all documents and both formats):
 * - templates: the answer's placeholder, condition and list variables against the expected ones;
 *   one matches an expected entry when their texts are equal once white space is collapsed, or
 *   when the expected entry has a name and the variable has that name;
 * - filled-in contracts: the answer's value variables against the expected values, by text (an
 *   expected value may list other spans that are as right, `also`);
 * - an expected entry marked `optional` counts neither as missed nor, when reported, as wrong.
 * Times are the whole HTTP request, one import at a time. "Per 20 pages" holds each import to the
 * goal for a 20-page document: a document of up to 20 pages (by its PDF's page count) counts with
 * its own time, a longer one with its time scaled down to 20 pages.
 *
 * PDFs are cached outside the repository (BENCH_IMPORT_CACHE, default <tmp>/deck-bench-import),
 * keyed by the DOCX's SHA-256, so the corpus is printed once per machine.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

interface Expected {
  text: string;
  kind?: string;
  name?: string;
  type?: string;
  optional?: boolean;
  /** Other spans that are as right. */
  also?: string[];
}
interface CorpusDocument {
  id: string;
  kind: 'template' | 'filled';
  publisher: string;
  expected: Expected[];
}
interface Variable {
  name: string;
  kind: 'placeholder' | 'value' | 'condition' | 'list';
  text: string;
  occurrences: number;
}
interface Score {
  /** Expected entries found / expected (optional ones left out). */
  found: number;
  expected: number;
  /** Reported entries that match an expected one / reported (those matching only optional ones left out). */
  correct: number;
  reported: number;
  missed: string[];
  wrong: string[];
}
interface FormatResult {
  status: number;
  ms: number;
  variables: Variable[];
  score: Score;
  error?: string;
}
interface DocumentResult {
  id: string;
  kind: 'template' | 'filled';
  pages: number;
  docx: FormatResult;
  pdf: FormatResult;
  identical: boolean;
}

const { values: options } = parseArgs({
  options: {
    corpus: {
      type: 'string',
      default: path.resolve(import.meta.dirname, '../test/fixtures/contracts-corpus'),
    },
    only: { type: 'string' },
    json: { type: 'string' },
  },
});
const corpusDir = path.resolve(options.corpus!);
const log = (line: string) => process.stdout.write(`${line}\n`);

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();

/** Scores one answer of one document (see the header for the rules). */
function score(document: CorpusDocument, variables: Variable[]): Score {
  const template = document.kind === 'template';
  const reported = variables.filter((v) => (template ? v.kind !== 'value' : v.kind === 'value'));
  const matches = (e: Expected, v: Variable) =>
    [e.text, ...(e.also ?? [])].some((t) => collapse(t) === collapse(v.text)) ||
    (template && e.name !== undefined && e.name === v.name);
  const required = document.expected.filter((e) => !e.optional);
  const missed = required.filter((e) => !reported.some((v) => matches(e, v)));
  let correct = 0;
  let counted = 0;
  const wrong: string[] = [];
  for (const v of reported) {
    const hits = document.expected.filter((e) => matches(e, v));
    if (hits.length > 0 && hits.every((e) => e.optional)) continue;
    counted += 1;
    if (hits.length > 0) correct += 1;
    else wrong.push(v.text);
  }
  return {
    found: required.length - missed.length,
    expected: required.length,
    correct,
    reported: counted,
    missed: missed.map((e) => e.text),
    wrong,
  };
}

function pageCount(pdf: Buffer): number {
  // LibreOffice writes each page as an uncompressed `/Type/Page` dictionary.
  return pdf.toString('latin1').match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
}

/** Prints the DOCX files whose PDF is not cached yet, in one LibreOffice run. */
function printPdfs(docxFiles: string[], cacheDir: string): Map<string, string> {
  const pdfs = new Map<string, string>();
  const missing: { docx: string; key: string }[] = [];
  for (const docx of docxFiles) {
    const key = createHash('sha256').update(readFileSync(docx)).digest('hex').slice(0, 32);
    const pdf = path.join(cacheDir, `${key}.pdf`);
    pdfs.set(docx, pdf);
    if (!existsSync(pdf)) missing.push({ docx, key });
  }
  if (missing.length === 0) return pdfs;
  const probe = spawnSync('soffice', ['--version'], { encoding: 'utf8' });
  if (probe.error) {
    console.error(
      'bench:import needs LibreOffice to print the corpus to PDF, and `soffice` is not on PATH.\n' +
        'Install it (Debian/Ubuntu: apt-get install libreoffice-writer-nogui) and run again.',
    );
    process.exit(2);
  }
  const work = mkdtempSync(path.join(os.tmpdir(), 'bench-import-'));
  try {
    // Named by key, so that the PDF LibreOffice writes lands under its cache name.
    const inputs = missing.map(({ docx, key }) => {
      const copy = path.join(work, `${key}.docx`);
      copyFileSync(docx, copy);
      return copy;
    });
    log(`printing ${inputs.length} document(s) to PDF with LibreOffice…`);
    const run = spawnSync(
      'soffice',
      [
        `-env:UserInstallation=${pathToFileURL(path.join(work, 'profile')).href}`,
        '--headless',
        '--convert-to',
        'pdf',
        '--outdir',
        cacheDir,
        ...inputs,
      ],
      { encoding: 'utf8', timeout: 900_000 },
    );
    for (const { docx } of missing) {
      if (!existsSync(pdfs.get(docx)!)) {
        throw new Error(`LibreOffice made no PDF of ${docx}: ${run.stderr || run.error?.message || ''}`);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return pdfs;
}

function percentile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

const ratio = (a: number, b: number) => (b === 0 ? 1 : a / b);
const fixed = (n: number) => n.toFixed(3);

const manifest = JSON.parse(readFileSync(path.join(corpusDir, 'manifest.json'), 'utf8')) as {
  documents: CorpusDocument[];
};
const documents = manifest.documents.filter((d) => !options.only || d.id === options.only);
if (documents.length === 0) {
  console.error(
    options.only ? `no document ${options.only} in ${corpusDir}` : `no documents in ${corpusDir}`,
  );
  process.exit(2);
}
const docxOf = (d: CorpusDocument) => path.join(corpusDir, 'docx', `${d.id}.docx`);
for (const d of documents) {
  if (!existsSync(docxOf(d))) throw new Error(`${docxOf(d)} is missing (build.ts in the corpus makes it)`);
}
const cacheDir = process.env.BENCH_IMPORT_CACHE ?? path.join(os.tmpdir(), 'deck-bench-import');
mkdirSync(cacheDir, { recursive: true });
const pdfs = printPdfs(documents.map(docxOf), cacheDir);

// The service of the checkout we are run from, not necessarily the one beside this script.
const root = process.cwd();
// bench/ since issue 40; an older checkout keeps its benchmarks in scripts/.
const setup = ['bench/bench-setup.ts', 'scripts/bench-setup.ts']
  .map((file) => path.join(root, file))
  .find((file) => existsSync(file));
if (!setup) {
  console.error(`run bench:import from the root of a deck-service checkout (${root} is not one)`);
  process.exit(2);
}
const { startScratchApp } = (await import(pathToFileURL(setup).href)) as typeof import('./bench-setup.ts');
const { createInProcessCaller } = (await import(
  pathToFileURL(path.join(root, 'app/in-process.ts')).href
)) as typeof import('../app/in-process.ts');

// Per document, printed as each one is done.
const cell = (s: Score, what: 'recall' | 'precision') =>
  what === 'recall' ? fixed(ratio(s.found, s.expected)) : fixed(ratio(s.correct, s.reported));
const printHeader = () =>
  log(
    [
      'document'.padEnd(52),
      'kind    ',
      'ph.rec',
      'ph.prec',
      'val.rec',
      'val.prec',
      'same',
      'docx ms',
      'pdf ms',
      'pages',
    ].join('  '),
  );
const sum = (list: Score[]): Score =>
  list.reduce(
    (a, s) => ({
      found: a.found + s.found,
      expected: a.expected + s.expected,
      correct: a.correct + s.correct,
      reported: a.reported + s.reported,
      missed: [],
      wrong: [],
    }),
    { found: 0, expected: 0, correct: 0, reported: 0, missed: [], wrong: [] },
  );
function printRow(r: DocumentResult) {
  const both = sum([r.docx.score, r.pdf.score]);
  const template = r.kind === 'template';
  const failed = [r.docx, r.pdf].filter((f) => f.status !== 200).map((f) => `${f.status} ${f.error ?? ''}`);
  log(
    [
      r.id.padEnd(52),
      r.kind.padEnd(8),
      (template ? cell(both, 'recall') : '-').padStart(6),
      (template ? cell(both, 'precision') : '-').padStart(7),
      (template ? '-' : cell(both, 'recall')).padStart(7),
      (template ? '-' : cell(both, 'precision')).padStart(8),
      (r.identical ? 'yes' : 'NO').padStart(4),
      r.docx.ms.toFixed(0).padStart(7),
      r.pdf.ms.toFixed(0).padStart(6),
      String(r.pages).padStart(5),
      failed.length ? ` failed: ${failed.join('; ')}` : '',
    ].join('  '),
  );
}

const { app, close } = await startScratchApp({
  HEAVY_LIMIT_PER_MINUTE: '1000000',
  RATE_LIMIT_PER_MINUTE: '1000000',
});
const results: DocumentResult[] = [];
try {
  // Signed in here, not with bench-setup.ts's signedInCookie: the checkout measured may predate it.
  const email = 'bench@import.test';
  const password = 'bench-import-password';
  await createInProcessCaller(app.database.orm, app.services).admin.createUser({
    organization: 'Bench import',
    email,
    password,
  });
  const login = await fetch(`${app.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (!login.ok) throw new Error(`sign-in failed: ${login.status}`);
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');

  const importOne = async (document: CorpusDocument, file: string, name: string): Promise<FormatResult> => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(readFileSync(file))]), name);
    const started = performance.now();
    const response = await fetch(`${app.url}/api/contracts/import`, {
      method: 'POST',
      headers: { cookie },
      body: form,
    });
    const body = (await response.json().catch(() => ({}))) as { variables?: Variable[]; detail?: string };
    const ms = performance.now() - started;
    const variables = response.ok && Array.isArray(body.variables) ? body.variables : [];
    return {
      status: response.status,
      ms,
      variables,
      score: score(document, variables),
      ...(response.ok ? {} : { error: body.detail ?? response.statusText }),
    };
  };

  printHeader();
  for (const document of documents) {
    const docx = await importOne(document, docxOf(document), `${document.id}.docx`);
    const pdfFile = pdfs.get(docxOf(document))!;
    const pdf = await importOne(document, pdfFile, `${document.id}.pdf`);
    const identical =
      docx.status === 200 &&
      pdf.status === 200 &&
      JSON.stringify(docx.variables) === JSON.stringify(pdf.variables);
    const result: DocumentResult = {
      id: document.id,
      kind: document.kind,
      pages: pageCount(readFileSync(pdfFile)),
      docx,
      pdf,
      identical,
    };
    results.push(result);
    printRow(result);
  }
} finally {
  await close();
}

// Totals: micro-averages over both formats.
const scoresOf = (kind: 'template' | 'filled') =>
  sum(results.filter((r) => r.kind === kind).flatMap((r) => [r.docx.score, r.pdf.score]));
const placeholders = scoresOf('template');
const values = scoresOf('filled');
const times = results.flatMap((r) => [r.docx.ms, r.pdf.ms]);
const per20Pages = results.flatMap((r) =>
  [r.docx.ms, r.pdf.ms].map((ms) => (ms * 20) / Math.max(20, r.pages)),
);
const agreement = (100 * results.filter((r) => r.identical).length) / results.length;
const totals = {
  documents: results.length,
  templates: results.filter((r) => r.kind === 'template').length,
  filled: results.filter((r) => r.kind === 'filled').length,
  placeholders: {
    recall: ratio(placeholders.found, placeholders.expected),
    precision: ratio(placeholders.correct, placeholders.reported),
    ...placeholders,
  },
  values: {
    recall: ratio(values.found, values.expected),
    precision: ratio(values.correct, values.reported),
    ...values,
  },
  agreementPercent: agreement,
  p50Ms: percentile(times, 0.5),
  p95Ms: percentile(times, 0.95),
  p95MsPer20Pages: percentile(per20Pages, 0.95),
  pages: results.reduce((n, r) => n + r.pages, 0),
};
log('');
log(
  `placeholders (${totals.templates} templates, both formats): recall ${fixed(totals.placeholders.recall)} ` +
    `(${placeholders.found}/${placeholders.expected}), precision ${fixed(totals.placeholders.precision)} ` +
    `(${placeholders.correct}/${placeholders.reported})`,
);
log(
  `values (${totals.filled} filled-in contracts, both formats): recall ${fixed(totals.values.recall)} ` +
    `(${values.found}/${values.expected}), precision ${fixed(totals.values.precision)} (${values.correct}/${values.reported})`,
);
log(`DOCX and PDF identical: ${agreement.toFixed(1)} % of documents`);
log(
  `time per document: p50 ${totals.p50Ms.toFixed(0)} ms, p95 ${totals.p95Ms.toFixed(0)} ms; ` +
    `p95 per 20 pages ${totals.p95MsPer20Pages.toFixed(0)} ms (${totals.pages} pages in all)`,
);
if (options.json) {
  writeFileSync(
    options.json,
    `${JSON.stringify({ corpus: corpusDir, totals, documents: results }, null, 2)}\n`,
  );
  log(`every figure, per document and per format: ${path.resolve(options.json)}`);
}
log(
  `import: recall ${fixed(totals.placeholders.recall)}, precision ${fixed(totals.placeholders.precision)}, ` +
    `values recall ${fixed(totals.values.recall)}, precision ${fixed(totals.values.precision)}, ` +
    `${totals.p95Ms.toFixed(0)} ms per document`,
);
