import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type TtsBehaviour = 'ok' | 'error' | 'unauthorized' | 'hang' | 'hold';

/**
 * A local stand-in for ElevenLabs' API: `GET /v1/voices` and
 * `POST /v1/text-to-speech/{voice_id}` (MP3 bytes), with its `xi-api-key` check, its JSON
 * error bodies, and slow answers. Records the requests it got.
 */
export async function startElevenLabsStandIn(apiKey: string) {
  // `frames`: how many MPEG frames of 417 bytes its audio has (after a 10-byte ID3 header).
  const state = { voices: 'ok' as 'ok' | 'error', tts: 'ok' as TtsBehaviour, frames: 8 };
  const requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: any }[] = [];
  const hanging = new Set<http.ServerResponse>();
  // 'hold': answered (with audio) only when the test calls releaseHeld(), each with its text.
  const held = new Map<http.ServerResponse, string>();
  const fail = (res: http.ServerResponse, status: number, message: string) =>
    res
      .writeHead(status, { 'content-type': 'application/json' })
      .end(JSON.stringify({ detail: { status: 'error', message } }));

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      requests.push({
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: raw ? JSON.parse(raw) : undefined,
      });
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      if (req.url?.startsWith('/previews/'))
        return res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(fakeMp3());
      if (req.headers['xi-api-key'] !== apiKey) return fail(res, 401, 'Invalid API key');
      if (req.method === 'GET' && req.url === '/v1/voices') {
        if (state.voices === 'error') return fail(res, 500, 'Internal server error');
        return res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            voices: [
              voice(
                'v-rachel',
                'Rachel',
                'premade',
                { accent: 'american', gender: 'female', use_case: 'narration' },
                base,
              ),
              voice(
                'v-adam',
                'Adam',
                'premade',
                { accent: 'american', gender: 'male', use_case: 'conversational' },
                base,
              ),
              voice(
                'v-clyde',
                'Clyde',
                'premade',
                { accent: 'american', use_case: 'characters_animation' },
                base,
              ),
              voice(
                'v-mimi',
                'Mimi',
                'premade',
                { accent: 'swedish', use_case: 'video games', language: 'sv' },
                base,
              ),
              voice('v-lab', 'Lab test', 'high_quality', { use_case: 'narration' }, base),
              voice(
                'v-pro',
                'Priya',
                'professional',
                { accent: 'indian', gender: 'female', use_case: 'informative_educational' },
                base,
              ),
            ],
          }),
        );
      }
      const tts = req.url?.match(/^\/v1\/text-to-speech\/([^/?]+)\?output_format=mp3_44100_128$/);
      if (req.method === 'POST' && tts) {
        if (state.tts === 'hang') return void hanging.add(res);
        if (state.tts === 'hold') return void held.set(res, JSON.parse(raw).text);
        if (state.tts === 'error') return fail(res, 500, 'An internal error occurred');
        if (state.tts === 'unauthorized') return fail(res, 401, 'Unusual activity detected');
        return res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(fakeMp3(state.frames));
      }
      fail(res, 404, 'Not found');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    requests,
    /** How many text-to-speech requests are being held. */
    heldCount: () => held.size,
    /** The texts of the requests being held, in the order they came. */
    heldTexts: () => [...held.values()],
    /** Answers the held requests (those whose text is `text`, when given). */
    releaseHeld(text?: string) {
      for (const [res, heldText] of held) {
        if (text !== undefined && heldText !== text) continue;
        res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(fakeMp3(state.frames));
        held.delete(res);
      }
    },
    async close() {
      for (const res of [...hanging, ...held.keys()]) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function voice(id: string, name: string, category: string, labels: Record<string, string>, base: string) {
  return { voice_id: id, name, category, labels, preview_url: `${base}/previews/${id}.mp3`, settings: null };
}

/** An ID3 header and MPEG frames of silence: what an MP3 answer looks like on the wire. */
export function fakeMp3(frames = 8): Buffer {
  const frame = Buffer.alloc(417);
  frame.set([0xff, 0xfb, 0x90, 0x64]);
  return Buffer.concat([
    Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00', 'latin1'),
    ...Array.from({ length: frames }, () => frame),
  ]);
}
