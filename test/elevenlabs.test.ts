import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isMp3 } from './helpers/audio.ts';
import { expectProblem, type HttpClient } from './helpers/http-client.ts';
import { type ElevenLabsStandIn, startSpeakingApp } from './helpers/speaking-app.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

const KEY = 'sk_test_elevenlabs_key';
let eleven: ElevenLabsStandIn;
let t: TestApp;
let close: () => Promise<void>;
let user: HttpClient & { organizationId: string };

beforeAll(async () => {
  ({ eleven, t, close } = await startSpeakingApp(KEY, {
    SPEECH_TIMEOUT_MS: '400',
    VOICES_CACHE_SECONDS: '0',
    GENERATION_POLL_INTERVAL_MS: '50',
  }));
  user = await t.signedInClient();
});
afterAll(() => close());
afterEach(() => {
  eleven.state.voices = 'ok';
  eleven.state.tts = 'ok';
});

const faq = (deckId: string) =>
  user.post(`/api/decks/${deckId}/faqs`, {
    userQuestion: 'Do you integrate with Salesforce?',
    cannedAnswer: 'Yes, natively.',
  });

describe('the ElevenLabs engine', () => {
  it('lists the voices suited to presentations, with ElevenLabs’ own previews', async () => {
    const { voices } = (await user.get('/api/voices/list')).body;
    expect(voices.map((v: { voice_id: string }) => v.voice_id)).toEqual(['v-rachel', 'v-adam', 'v-pro']);
    expect(voices[0]).toEqual({
      voice_id: 'v-rachel',
      name: 'Rachel',
      category: 'premade',
      preview_url: `${eleven.url}/previews/v-rachel.mp3`,
      labels: { accent: 'american', gender: 'female', use_case: 'narration' },
    });
    expect(isMp3(Buffer.from(await (await fetch(voices[0].preview_url)).arrayBuffer()))).toBe(true);
    expect(eleven.requests.at(-2)?.headers['xi-api-key']).toBe(KEY);
  });

  it('still answers from its cache when ElevenLabs is down', async () => {
    const warm = (await user.get('/api/voices/list')).body.voices;
    eleven.state.voices = 'error';
    const during = await user.get('/api/voices/list');
    expect(during.status).toBe(200);
    expect(during.body.voices).toEqual(warm);

    const cold = await startTestApp({ ELEVENLABS_API_KEY: KEY, ELEVENLABS_BASE_URL: eleven.url });
    try {
      const someone = await cold.signedInClient();
      const problem = expectProblem(await someone.get('/api/voices/list'), 503, 'SERVICE_UNAVAILABLE');
      expect(problem.detail).toMatch(/ElevenLabs answered 500/);
      expect(JSON.stringify(problem)).not.toContain(KEY);
    } finally {
      await cold.close();
    }
  });

  it('speaks FAQ answers with the deck’s voice, in ElevenLabs’ protocol', async () => {
    const deck = (await user.post('/api/decks', { name: 'Eleven', voiceId: 'v-adam' })).body;
    const created = await faq(deck.id);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ audioStatus: 'ready' });
    expect(created.body.warning).toBeUndefined();
    const request = eleven.requests.findLast((r) => r.method === 'POST')!;
    expect(request.url).toBe('/v1/text-to-speech/v-adam?output_format=mp3_44100_128');
    expect(request.headers['xi-api-key']).toBe(KEY);
    expect(request.body).toMatchObject({
      text: 'Yes, natively.',
      model_id: 'eleven_multilingual_v2',
      voice_settings: expect.any(Object),
    });
    expect(isMp3(Buffer.from(await (await fetch(created.body.audioUrl)).arrayBuffer()))).toBe(true);
  });

  it.each([
    ['answers 500', 'error' as const, /ElevenLabs answered 500: An internal error occurred/],
    ['refuses the key', 'unauthorized' as const, /ElevenLabs answered 401/],
    ['hangs', 'hang' as const, /longer than 400 ms/],
  ])(
    'saves the FAQ anyway when ElevenLabs %s: 201, warning, audio_failed',
    async (_label, behaviour, reason) => {
      const deck = (await user.post('/api/decks', { name: `Failing ${behaviour}` })).body;
      eleven.state.tts = behaviour;
      const response = await faq(deck.id);
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ audioStatus: 'failed', audioKey: null, audioUrl: null });
      expect(response.body.warning).toMatch(reason);
      expect(response.body.warning).not.toContain(KEY);
      expect(
        (await user.get(`/api/decks/${deck.id}/faqs`)).body.faqs.map((f: { id: string }) => f.id),
      ).toEqual([response.body.id]);
      expect(await t.eventTypes(response.body.id)).toEqual(['faq.created', 'faq.audio_failed']);
    },
  );

  it('fails a generation job, with the reason, when a slide cannot be spoken', async () => {
    const deck = (await user.post('/api/decks', { name: 'Job fails' })).body;
    await user.post(`/api/decks/${deck.id}/slides`, { slideId: 'slide-1', narrationScript: 'First.' });
    await user.post(`/api/decks/${deck.id}/slides`, { slideId: 'slide-2', narrationScript: 'Second.' });
    eleven.state.tts = 'error';
    const job = (await user.post(`/api/decks/${deck.id}/generate`, {})).body;
    const status = await eventually(async () => {
      const current = (await user.get(`/api/decks/${deck.id}/generate/status`)).body;
      return current.status === 'failed' && current;
    }, 20_000);
    expect(status).toMatchObject({ jobId: job.jobId, currentSlide: 0, totalSlides: 2 });
    expect(status.error).toBe(
      'Slide slide-1 could not be spoken: ElevenLabs answered 500: An internal error occurred',
    );
    expect(await t.eventTypes(job.jobId)).toEqual(['generation_job.started', 'generation_job.failed']);
  });
});
