import { AsyncLocalStorage } from 'node:async_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FairPool } from '../adapters/fair-pool.ts';
import { createLocalSpeechEngine } from '../adapters/speech/local-speech.ts';
import { isMp3 } from './helpers/audio.ts';
import { fakeMp3 } from './helpers/elevenlabs-stand-in.ts';
import type { HttpClient, HttpResponse } from './helpers/http-client.ts';
import { type ElevenLabsStandIn, startSpeakingApp } from './helpers/speaking-app.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/**
 * Speech is a scarce pool (threads, or requests to ElevenLabs) shared by organizations: each gets
 * its turn, and none holds all of it. And what one text may make is bounded (SPEECH_MAX_AUDIO_BYTES).
 */
type LocalEngine = ReturnType<typeof createLocalSpeechEngine>;
type User = HttpClient & { organizationId: string };

const AT_LIMIT = 'Yes: every plan starts with a thirty day trial, and no card is needed.';
const PAST_LIMIT = `${AT_LIMIT} Ask us anything.`;
/** A minute of speech or so: long next to a short answer. */
const LONG = 'Our platform lets every sales rep present a polished deck with spoken answers. '.repeat(12);

const newDeck = async (user: User, name: string) =>
  (await user.post('/api/decks', { name })).body.id as string;
const faq = (user: User, deckId: string, cannedAnswer: string) =>
  user.post(`/api/decks/${deckId}/faqs`, { userQuestion: 'Q?', cannedAnswer });

describe('the pool shared in turn', () => {
  it('serves organizations in turn, each holding at most its share', async () => {
    const pool = new FairPool({ concurrency: 2, perOrganization: 1 });
    const started: string[] = [];
    const finish = new Map<string, () => void>();
    const task = (name: string) => () =>
      new Promise<void>((resolve) => {
        started.push(name);
        finish.set(name, resolve);
      });
    const done = ['a1', 'a2', 'a3', 'b1', 'b2', 'c1'].map((name) => pool.run(name[0]!, task(name)));
    // a holds one slot (its share), b the other; a2, a3, b2 and c1 wait.
    expect(started).toEqual(['a1', 'b1']);
    expect(pool.counts()).toEqual({ running: 2, waiting: 4 });
    finish.get('a1')!();
    await eventually(() => started.length === 3);
    // a's turn is over: c, which has waited longest among those with room, goes next.
    expect(started).toEqual(['a1', 'b1', 'c1']);
    finish.get('b1')!();
    await eventually(() => started.length === 4);
    expect(started.at(-1)).toBe('a2');
    for (const name of ['c1', 'a2']) finish.get(name)!();
    await eventually(() => started.length === 6);
    expect(started.slice(4)).toEqual(['b2', 'a3']);
    for (const name of ['b2', 'a3']) finish.get(name)!();
    await Promise.all(done);
    expect(pool.counts()).toEqual({ running: 0, waiting: 0 });
  });

  it("runs a task that waited in its caller's context (its request's trace), not the one that freed the slot", async () => {
    const pool = new FairPool({ concurrency: 1, perOrganization: 1 });
    const request = new AsyncLocalStorage<string>();
    let release!: () => void;
    const first = request.run('first', () =>
      pool.run('a', () => new Promise<void>((resolve) => (release = resolve))),
    );
    const second = request.run('second', () => pool.run('b', async () => request.getStore()));
    release();
    await first;
    expect(await second).toBe('second');
  });

  it('takes a task out of its line when its signal aborts while it waits', async () => {
    const pool = new FairPool({ concurrency: 1, perOrganization: 1 });
    let release!: () => void;
    const first = pool.run('a', () => new Promise<void>((resolve) => (release = resolve)));
    const controller = new AbortController();
    let ran = false;
    const waiting = pool.run(
      'b',
      async () => {
        ran = true;
      },
      controller.signal,
    );
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    expect(pool.counts()).toEqual({ running: 1, waiting: 0 });
    release();
    await first;
    expect(ran).toBe(false);
  });
});

describe('espeak-ng threads', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SPEECH_CONCURRENCY: '2', SPEECH_TIMEOUT_MS: '120000' });
  });
  afterAll(() => t.close());

  it("one organization's backlog of long answers does not hold up another's short one", async () => {
    const engine = t.app.services.speech as LocalEngine;
    const [a, b] = [await t.signedInClient(), await t.signedInClient()];
    const [deckA, deckB] = [await newDeck(a, 'Long answers'), await newDeck(b, 'Short answer')];
    // Both threads warm (one answer of each organization at once), so that what follows is about
    // turns, not start-up.
    const warm = await Promise.all([faq(a, deckA, 'Warm.'), faq(b, deckB, 'Warm.')]);
    expect(warm.map((r) => r.body.audioStatus)).toEqual(['ready', 'ready']);
    expect(engine.workers().started).toBe(2);

    const answered: string[] = [];
    const longOnes = Array.from({ length: 5 }, (_, i) =>
      faq(a, deckA, `${i}. ${LONG}`).then((response) => {
        answered.push(`a${i}`);
        return response;
      }),
    );
    // All five at the engine: one organization holds one thread of two, the rest of its answers wait.
    await eventually(() => {
      const { running, waiting } = engine.queue();
      return running + waiting === 5;
    });
    expect(engine.queue().running).toBe(1);

    const short = await faq(b, deckB, 'Yes.');
    const stillWaiting = engine.queue().waiting;
    answered.push('b');
    expect(short.status).toBe(201);
    expect(short.body.audioStatus).toBe('ready');
    // Answered while the other organization's answers were still queued, not after them.
    expect(stillWaiting).toBeGreaterThan(0);
    expect(answered.indexOf('b')).toBeLessThan(2);

    const long = await Promise.all(longOnes);
    expect(long.map((r: HttpResponse) => r.body.audioStatus)).toEqual(Array(5).fill('ready'));
  }, 60_000);
});

describe('the largest audio one text may make (SPEECH_MAX_AUDIO_BYTES)', () => {
  let t: TestApp;
  let limit: number;
  beforeAll(async () => {
    // The limit: exactly what AT_LIMIT makes (a text makes the same bytes every time).
    const engine = createLocalSpeechEngine({ concurrency: 1, timeoutMs: 60_000, previewUrl: () => '' });
    try {
      const mp3 = await engine.synthesize(AT_LIMIT, engine.defaultVoiceId, {
        organizationId: 'measure',
        maxBytes: 1024 * 1024,
      });
      limit = mp3.length;
    } finally {
      await engine.close();
    }
    t = await startTestApp({ SPEECH_MAX_AUDIO_BYTES: String(limit), GENERATION_POLL_INTERVAL_MS: '50' });
  });
  afterAll(() => t.close());

  it('speaks an answer whose audio is at the limit; past it, saves the FAQ without audio, saying why', async () => {
    const user = await t.signedInClient();
    const deckId = await newDeck(user, 'Bounded answers');
    const at = await faq(user, deckId, AT_LIMIT);
    expect(at.status).toBe(201);
    expect(at.body).toMatchObject({ audioStatus: 'ready' });
    expect(at.body.warning).toBeUndefined();
    expect((await t.app.services.storage.head(at.body.audioKey))?.size).toBe(limit);

    const tooLong = `the audio would be larger than ${limit} bytes, the most one text may make: shorten it`;
    // Just past it (refused once encoded), and far past it (refused before encoding).
    for (const text of [PAST_LIMIT, '中文答案'.repeat(500)]) {
      const past = await faq(user, deckId, text);
      expect(past.status).toBe(201);
      expect(past.body).toMatchObject({ audioStatus: 'failed', audioKey: null, audioUrl: null });
      expect(past.body.warning).toContain(tooLong);
      expect(await t.eventTypes(past.body.id)).toEqual(['faq.created', 'faq.audio_failed']);
    }
    // A new answer past the limit drops the old audio too, and says why.
    const edited = await user.patch(`/api/faqs/${at.body.id}`, { cannedAnswer: PAST_LIMIT });
    expect(edited.body).toMatchObject({ audioStatus: 'failed', audioKey: null });
    expect(edited.body.warning).toContain(tooLong);
    expect(await t.app.services.storage.head(at.body.audioKey)).toBeNull();
  });

  it('fails a narration job at the first slide past the limit, with the reason', async () => {
    const user = await t.signedInClient();
    const deckId = await newDeck(user, 'Bounded narration');
    await user.post(`/api/decks/${deckId}/slides`, { slideId: 'slide-1', narrationScript: AT_LIMIT });
    await user.post(`/api/decks/${deckId}/slides`, { slideId: 'slide-2', narrationScript: PAST_LIMIT });
    const started = await user.post(`/api/decks/${deckId}/generate`, {});
    expect(started.status, started.text).toBe(202);
    const job = started.body;
    const status = await eventually(async () => {
      const current = (await user.get(`/api/decks/${deckId}/generate/status`)).body;
      return ['completed', 'failed'].includes(current.status) && current;
    }, 20_000);
    expect(status).toMatchObject({ jobId: job.jobId, status: 'failed', currentSlide: 1, totalSlides: 2 });
    expect(status.error).toBe(
      `Slide slide-2 could not be spoken: the audio would be larger than ${limit} bytes, the most one text may make: shorten it`,
    );
  });
});

describe('ElevenLabs', () => {
  const KEY = 'sk_test_elevenlabs_key';
  /** Forty frames of the stand-in's audio: the limit of this app. */
  const LIMIT = fakeMp3(40).length;
  let eleven: ElevenLabsStandIn;
  let t: TestApp;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ eleven, t, close } = await startSpeakingApp(KEY, {
      SPEECH_CONCURRENCY: '2',
      SPEECH_TIMEOUT_MS: '60000',
      SPEECH_MAX_AUDIO_BYTES: String(LIMIT),
    }));
  });
  afterAll(() => close());

  it("sends at most SPEECH_CONCURRENCY requests, one organization's backlog not ahead of another's", async () => {
    const [a, b] = [await t.signedInClient(), await t.signedInClient()];
    const [deckA, deckB] = [await newDeck(a, 'Many answers'), await newDeck(b, 'One answer')];
    eleven.state.tts = 'hold';
    try {
      const sent = () => eleven.requests.filter((r) => r.url.startsWith('/v1/text-to-speech/')).length;
      const before = sent();
      const many = Array.from({ length: 4 }, (_, i) => faq(a, deckA, `Answer ${i}.`));
      await eventually(() => eleven.heldCount() === 1);
      const one = faq(b, deckB, 'The one answer.');
      await eventually(() => eleven.heldTexts().includes('The one answer.'));
      // Two in flight: one of each organization; the other three of the first wait here, unsent.
      expect(eleven.heldCount()).toBe(2);
      expect(sent() - before).toBe(2);
      eleven.releaseHeld('The one answer.');
      expect((await one).body.audioStatus).toBe('ready');
      expect(sent() - before).toBe(2);

      // The first organization's, one at a time.
      for (let i = 0; i < 4; i += 1) {
        await eventually(() => eleven.heldCount() === 1);
        expect(sent() - before).toBe(2 + i);
        eleven.releaseHeld();
      }
      expect((await Promise.all(many)).map((r) => r.body.audioStatus)).toEqual(Array(4).fill('ready'));
    } finally {
      eleven.state.tts = 'ok';
      eleven.releaseHeld();
    }
  });

  it('keeps audio at the limit; refuses audio past it', async () => {
    const user = await t.signedInClient();
    const deckId = await newDeck(user, 'Bounded ElevenLabs');
    eleven.state.frames = 40;
    try {
      const at = await faq(user, deckId, 'Forty frames.');
      expect(at.body).toMatchObject({ audioStatus: 'ready' });
      const stored = await fetch(at.body.audioUrl);
      expect(isMp3(Buffer.from(await stored.arrayBuffer()))).toBe(true);
      expect((await t.app.services.storage.head(at.body.audioKey))?.size).toBe(LIMIT);

      eleven.state.frames = 41;
      const past = await faq(user, deckId, 'Forty-one frames.');
      expect(past.body).toMatchObject({ audioStatus: 'failed', audioKey: null });
      expect(past.body.warning).toContain(`the audio would be larger than ${LIMIT} bytes`);
    } finally {
      eleven.state.frames = 8;
    }
  });
});
