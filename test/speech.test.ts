import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { createLocalSpeechEngine } from '../adapters/speech/local-speech.ts';
import { isMp3 } from './helpers/audio.ts';
import { expectProblem, type HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/** The zero-config engine: espeak-ng (WASM) in worker threads, MP3 out. */
let t: TestApp;
let user: HttpClient & { organizationId: string };

beforeAll(async () => {
  t = await startTestApp({ GENERATION_POLL_INTERVAL_MS: '50' });
  user = await t.signedInClient('Speech Org');
});
afterAll(() => t.close());

const play = async (url: string, client?: HttpClient) => {
  const response = client ? await fetch(url, { headers: { cookie: client.cookieHeader } }) : await fetch(url);
  expect(response.status).toBe(200);
  const bytes = Buffer.from(await response.arrayBuffer());
  expect(isMp3(bytes)).toBe(true);
  expect(bytes.length).toBeGreaterThan(1000);
  return response;
};

describe('voices', () => {
  it('lists curated English voices, each with a preview that plays', async () => {
    const response = await user.get('/api/voices/list');
    expect(response.status).toBe(200);
    const voices = response.body.voices;
    expect(voices.length).toBeGreaterThanOrEqual(8);
    for (const voice of voices) {
      expect(Object.keys(voice).sort()).toEqual(['category', 'labels', 'name', 'preview_url', 'voice_id']);
      expect(voice.labels).toMatchObject({
        language: 'en',
        gender: expect.stringMatching(/^(female|male)$/),
      });
    }
    const preview = await play(voices[0].preview_url, user);
    expect(preview.headers.get('content-type')).toBe('audio/mpeg');
    expectProblem(await t.client().get(new URL(voices[0].preview_url).pathname), 401, 'UNAUTHORIZED');
    expectProblem(await user.get('/api/voices/no-such-voice/preview'), 404, 'NOT_FOUND');
  });

  it('refuses a deck voice that is not in the list', async () => {
    const problem = expectProblem(
      await user.post('/api/decks', { name: 'x', voiceId: 'klingon' }),
      400,
      'BAD_REQUEST',
    );
    expect(problem.issues).toEqual([{ path: ['voiceId'], message: expect.any(String) }]);
  });
});

describe('FAQs', () => {
  it('speaks the answer on creation (201) and serves it; a new answer is spoken again, the old audio dropped', async () => {
    const deck = (await user.post('/api/decks', { name: 'FAQ deck', voiceId: 'en-gb+robert' })).body;
    const slide = (await user.post(`/api/decks/${deck.id}/slides`, { title: 'Pricing' })).body;
    const created = await user.post(`/api/decks/${deck.id}/faqs`, {
      userQuestion: 'Is there a free trial?',
      cannedAnswer: 'Yes, every plan starts with a thirty day trial.',
      relatedSlideId: slide.id,
    });
    expect(created.status).toBe(201);
    const faq = created.body;
    expect(faq).toEqual({
      id: expect.any(String),
      deckId: deck.id,
      userQuestion: 'Is there a free trial?',
      cannedAnswer: 'Yes, every plan starts with a thirty day trial.',
      relatedSlideId: slide.id,
      audioKey: expect.stringMatching(new RegExp(`^org/${user.organizationId}/audio/`)),
      audioUrl: expect.any(String),
      audioStatus: 'ready',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    await play(faq.audioUrl);
    expect((await user.get(`/api/decks/${deck.id}/faqs`)).body.faqs.map((f: { id: string }) => f.id)).toEqual(
      [faq.id],
    );

    const question = (
      await user.patch(`/api/faqs/${faq.id}`, { userQuestion: 'Can I try it first?', relatedSlideId: null })
    ).body;
    expect(question.audioKey).toBe(faq.audioKey);
    expect(question.relatedSlideId).toBeNull();
    const answer = (
      await user.patch(`/api/faqs/${faq.id}`, { cannedAnswer: 'Yes: fourteen days, no card needed.' })
    ).body;
    expect(answer.audioKey).not.toBe(faq.audioKey);
    expect(answer.warning).toBeUndefined();
    await play(answer.audioUrl);
    expect(await t.app.services.storage.head(faq.audioKey)).toBeNull();

    expect((await user.delete(`/api/faqs/${faq.id}`)).body).toEqual({ success: true });
    expect(await t.app.services.storage.head(answer.audioKey)).toBeNull();
    expect(await t.eventTypes(faq.id)).toEqual(['faq.created', 'faq.updated', 'faq.updated', 'faq.deleted']);
  });

  it.each([
    ['an empty answer', { userQuestion: 'Q?', cannedAnswer: '  ' }, 'cannedAnswer'],
    ['an answer too long', { userQuestion: 'Q?', cannedAnswer: 'x'.repeat(5001) }, 'cannedAnswer'],
    ['no question', { cannedAnswer: 'A.' }, 'userQuestion'],
    [
      'a related slide of another deck',
      { userQuestion: 'Q?', cannedAnswer: 'A.', relatedSlideId: 'other' },
      'relatedSlideId',
    ],
    [
      'a related slide that does not exist',
      { userQuestion: 'Q?', cannedAnswer: 'A.', relatedSlideId: randomUUID() },
      'relatedSlideId',
    ],
  ])('rejects %s with 400, saving nothing', async (_label, body, field) => {
    const deck = (await user.post('/api/decks', { name: 'FAQ rules' })).body;
    const elsewhere = (
      await user.post(`/api/decks/${(await user.post('/api/decks', { name: 'other' })).body.id}/slides`, {})
    ).body;
    const payload = {
      ...body,
      ...((body as { relatedSlideId?: string }).relatedSlideId === 'other'
        ? { relatedSlideId: elsewhere.id }
        : {}),
    };
    const problem = expectProblem(await user.post(`/api/decks/${deck.id}/faqs`, payload), 400, 'BAD_REQUEST');
    expect(problem.issues?.map((i) => i.path.join('.'))).toContain(field);
    expect((await user.get(`/api/decks/${deck.id}/faqs`)).body.faqs).toEqual([]);
  });
});

describe('deck narration', () => {
  it('goes pending → processing (with progress) → completed, and every slide and the intro can be played', async () => {
    const deck = (await user.post('/api/decks', { name: 'Ten slides' })).body;
    const slides = [];
    for (let i = 1; i <= 10; i++) {
      slides.push(
        (
          await user.post(`/api/decks/${deck.id}/slides`, {
            title: `S${i}`,
            narrationScript: `This is slide number ${i}.`,
          })
        ).body,
      );
    }
    await user.post(`/api/decks/${deck.id}/slides`, { title: 'No script' });
    await user.put(`/api/decks/${deck.id}/intro`, { script: 'Welcome to the deck.' });
    expectProblem(await user.get(`/api/decks/${deck.id}/generate/status`), 404, 'NOT_FOUND');
    expect(
      expectProblem(await user.get(`/api/slides/${slides[0].id}/audio`), 404, 'NOT_FOUND').detail,
    ).toMatch(/no audio yet/);

    const started = await user.post(`/api/decks/${deck.id}/generate`, {});
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ status: 'pending', currentSlide: 0, totalSlides: 10 });
    // No error to tell: the field is left out, as the interface's optional string (not null).
    expect(started.body).not.toHaveProperty('error');

    const seen: { status: string; currentSlide: number }[] = [];
    const final = await eventually(async () => {
      const status = (await user.get(`/api/decks/${deck.id}/generate/status`)).body;
      seen.push({ status: status.status, currentSlide: status.currentSlide });
      return ['completed', 'failed'].includes(status.status) && status;
    }, 60_000);
    expect(final).toMatchObject({
      jobId: started.body.jobId,
      status: 'completed',
      currentSlide: 10,
      totalSlides: 10,
    });
    expect(final).not.toHaveProperty('error');
    expect(seen.some((s) => s.status === 'processing' && s.currentSlide > 0 && s.currentSlide < 10)).toBe(
      true,
    );
    const progress = seen.filter((s) => s.status === 'processing').map((s) => s.currentSlide);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));

    for (const slide of slides) {
      const audio = await user.get(`/api/slides/${slide.id}/audio`);
      expect(audio.status).toBe(200);
      await play(audio.body.url);
    }
    const listed = (await user.get(`/api/decks/${deck.id}/slides`)).body.slides;
    expect(listed.filter((s: { audioUrl: string | null }) => s.audioUrl).length).toBe(10);
    const intro = (await user.get(`/api/decks/${deck.id}/intro`)).body;
    await play(intro.audioUrl);
    expect(await t.eventTypes(started.body.jobId)).toEqual([
      'generation_job.started',
      'generation_job.completed',
    ]);
  });

  it('runs one job per deck: concurrent starts get one 202 and 409s', async () => {
    const deck = (await user.post('/api/decks', { name: 'Busy' })).body;
    await user.post(`/api/decks/${deck.id}/slides`, { narrationScript: 'One.' });
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => user.post(`/api/decks/${deck.id}/generate`, {})),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409, 409, 409]);
    for (const refused of answers.filter((a) => a.status === 409)) expectProblem(refused, 409, 'CONFLICT');
    await eventually(
      async () => (await user.get(`/api/decks/${deck.id}/generate/status`)).body.status === 'completed',
      30_000,
    );
    expect((await user.post(`/api/decks/${deck.id}/generate`, {})).status).toBe(202);
  });

  it('refuses a deck with nothing to narrate', async () => {
    const deck = (await user.post('/api/decks', { name: 'Silent' })).body;
    await user.post(`/api/decks/${deck.id}/slides`, { title: 'No script' });
    expectProblem(await user.post(`/api/decks/${deck.id}/generate`, {}), 400, 'BAD_REQUEST');
  });

  it('picks up a job whose worker died, from where it got to', async () => {
    const idle = await startTestApp({ GENERATION_ENABLED: 'false' });
    const owner = await idle.signedInClient();
    const deck = (await owner.post('/api/decks', { name: 'Orphaned job' })).body;
    const slides = [];
    for (let i = 1; i <= 5; i++)
      slides.push(
        (await owner.post(`/api/decks/${deck.id}/slides`, { narrationScript: `Slide ${i}.` })).body,
      );
    const job = (await owner.post(`/api/decks/${deck.id}/generate`, {})).body;
    // As a worker leaves a job when it dies after three slides: processing, lease lapsed.
    await idle.app.database.orm.em
      .getConnection()
      .execute(
        `update generation_job set status = 'processing', current_slide = 3, locked_until = now() - interval '1 second' where id = ?`,
        [job.jobId],
      );
    await idle.close();

    const worker = await startTestApp(
      { GENERATION_POLL_INTERVAL_MS: '50' },
      { databaseUrl: idle.databaseUrl },
    );
    try {
      const again = worker.client();
      await again.post('/api/auth/login', { email: owner.email, password: owner.password });
      const done = await eventually(async () => {
        const status = (await again.get(`/api/decks/${deck.id}/generate/status`)).body;
        return status.status === 'completed' && status;
      }, 30_000);
      expect(done).toMatchObject({ jobId: job.jobId, currentSlide: 5, totalSlides: 5 });
      const audio = (await again.get(`/api/decks/${deck.id}/slides`)).body.slides.map(
        (s: { audioUrl: string | null }) => Boolean(s.audioUrl),
      );
      // Slides 1–3 were the dead worker's (this simulation gave them no audio); 4 and 5 were resumed.
      expect(audio).toEqual([false, false, false, true, true]);
    } finally {
      await worker.close();
    }
  });
});

describe('speech workers', () => {
  type LocalEngine = ReturnType<typeof createLocalSpeechEngine>;
  const engine = () => t.app.services.speech as LocalEngine;
  /** As the FAQs of `user`'s organization are spoken. */
  const asUser = (signal?: AbortSignal) => ({
    organizationId: user.organizationId,
    maxBytes: t.app.config.speech.maxAudioBytes,
    signal,
  });

  it('speak answers one after another in one warm worker thread', async () => {
    // Whatever spoke before (previews, answers): from here, one worker speaks both.
    await engine().synthesize('Warming up.', 'en-us+Annie', asUser());
    const before = engine().workers();
    const first = await engine().synthesize('Yes: thirty days, no card needed.', 'en-us+Annie', asUser());
    const second = await engine().synthesize('We ship in days, not months.', 'en-gb+robert', asUser());
    expect(isMp3(first) && isMp3(second)).toBe(true);
    expect(engine().workers()).toEqual({ started: before.started, idle: before.idle });
  });

  it('a warm thread speaks the same text the same each time, whatever it spoke in between', async () => {
    // One instance of espeak-ng answers every message of its thread, reset before each: nothing
    // of one answer (a voice, a longer text, its memory) may reach the next.
    const text = 'Yes: thirty days, no card needed.';
    const first = await engine().synthesize(text, 'en-us+Annie', asUser());
    await engine().synthesize(
      'A longer answer, in another voice, to grow what the engine holds. '.repeat(20),
      'en-gb+robert',
      asUser(),
    );
    const again = await engine().synthesize(text, 'en-us+Annie', asUser());
    expect(isMp3(first)).toBe(true);
    expect(again.equals(first)).toBe(true);
    expect(
      (await engine().synthesize('We ship in days, not months.', 'en-us+Annie', asUser())).equals(first),
    ).toBe(false);
  });

  it('after an answer given up on, the next is spoken by a fresh worker', async () => {
    await engine().synthesize('Warming up.', 'en-us+Annie', asUser());
    const { started } = engine().workers();
    const controller = new AbortController();
    const givenUp = engine().synthesize(
      'A long answer that is never finished. '.repeat(40),
      'en-us+Annie',
      asUser(controller.signal),
    );
    setImmediate(() => controller.abort());
    await expect(givenUp).rejects.toThrow();
    const next = await engine().synthesize('Yes: thirty days, no card needed.', 'en-us+Annie', asUser());
    expect(isMp3(next)).toBe(true);
    expect(engine().workers().started).toBe(started + 1);
  });
});
