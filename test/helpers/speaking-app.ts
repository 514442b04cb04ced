import { startElevenLabsStandIn } from './elevenlabs-stand-in.ts';
import { startTestApp, type TestApp } from './test-app.ts';

/** The ElevenLabs stand-in, as `startElevenLabsStandIn` returns it. */
export type ElevenLabsStandIn = Awaited<ReturnType<typeof startElevenLabsStandIn>>;

/**
 * The ElevenLabs stand-in (taking `apiKey`) and the app speaking through it with the voice
 * `v-rachel`, and `env`; `close()` stops both. A failed start stops the stand-in it began.
 */
export async function startSpeakingApp(apiKey: string, env: Record<string, string> = {}) {
  const eleven = await startElevenLabsStandIn(apiKey);
  let t: TestApp;
  try {
    t = await startTestApp({
      ELEVENLABS_API_KEY: apiKey,
      ELEVENLABS_BASE_URL: eleven.url,
      ELEVENLABS_DEFAULT_VOICE_ID: 'v-rachel',
      ...env,
    });
  } catch (error) {
    await eleven.close();
    throw error;
  }
  const close = async () => {
    await t.close();
    await eleven.close();
  };
  return { eleven, t, close };
}
