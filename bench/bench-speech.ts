/**
 * `npm run bench:speech`: the built-in voice (espeak-ng and LAME, WASM, in warm worker threads).
 * Speaks BENCH_ANSWERS (10) answers of 10, 16, 30 and 100 words through the engine and prints each
 * size's p50 and p95 and its real-time factor (time to speak ÷ length of the audio); then saves
 * the same number of FAQs with a 16-word answer over HTTP (`POST /api/decks/{deckId}/faqs`, whose
 * answer waits for the speech) on the real service. The first answer of a run (the worker's start
 * and the compilations) is reported apart and not counted. Last line, for scripts:
 * `speech: 16 words median <ms> ms`.
 */
import { createLocalSpeechEngine } from '../adapters/speech/local-speech.ts';
import { signedInCookie, startScratchApp, summarise } from './bench-setup.ts';

const ANSWERS = Number(process.env.BENCH_ANSWERS ?? 10);
const WORDS =
  'our platform lets every sales rep present a polished deck with answers spoken in a clear natural voice while the team tracks what prospects ask'.split(
    ' ',
  );
const answer = (words: number, n: number) =>
  Array.from({ length: words }, (_, i) => WORDS[(i + n) % WORDS.length]).join(' ');
/** MP3 at 64 kbit/s: its length in seconds. */
const seconds = (mp3: Buffer) => (mp3.length * 8) / 64_000;

const engine = createLocalSpeechEngine({ concurrency: 1, timeoutMs: 60_000, previewUrl: () => '' });
const voice = engine.defaultVoiceId;
const bench = { organizationId: 'bench', maxBytes: 64 * 1024 * 1024 };
let started = performance.now();
await engine.synthesize('Warming up the voice.', voice, bench);
console.log(`first answer (worker start, compilation): ${(performance.now() - started).toFixed(0)} ms`);

let sixteen = '';
for (const words of [10, 16, 30, 100]) {
  const timings: number[] = [];
  let audio = 0;
  for (let n = 0; n < ANSWERS; n += 1) {
    started = performance.now();
    const mp3 = await engine.synthesize(answer(words, n), voice, bench);
    timings.push(performance.now() - started);
    audio += seconds(mp3);
  }
  const { median, p95 } = summarise(timings);
  const factor = timings.reduce((a, b) => a + b, 0) / 1000 / audio;
  console.log(
    `engine, ${words} words: p50 ${median} ms, p95 ${p95} ms, ${(audio / ANSWERS).toFixed(1)} s of audio, real-time factor ${factor.toFixed(3)}`,
  );
  if (words === 16) sixteen = median;
}
await engine.close();

const { app, close } = await startScratchApp();
try {
  const headers = { cookie: await signedInCookie(app, 'Speech'), 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${app.url}/api${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id: string };
  };
  const deck = await post('/decks', { name: 'Spoken' });
  await post(`/decks/${deck.id}/faqs`, { userQuestion: 'Warm?', cannedAnswer: 'Warming up the voice.' });
  const timings: number[] = [];
  for (let n = 0; n < ANSWERS; n += 1) {
    started = performance.now();
    await post(`/decks/${deck.id}/faqs`, { userQuestion: `Question ${n}?`, cannedAnswer: answer(16, n) });
    timings.push(performance.now() - started);
  }
  const { median, p95 } = summarise(timings);
  console.log(`POST /api/decks/{deckId}/faqs, 16-word answer: p50 ${median} ms, p95 ${p95} ms`);
} finally {
  await close();
}
console.log(`speech: 16 words median ${sixteen} ms`);
