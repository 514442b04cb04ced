import http from 'node:http';
import type { AddressInfo } from 'node:net';

type Behaviour =
  | { kind: 'answer'; variables: { name: string; kind: string; text: string }[] }
  | { kind: 'error'; status: number; message: string }
  | { kind: 'hang' };

/**
 * A local stand-in for an OpenAI-compatible chat-completions endpoint: the real request and
 * answer shapes (structured output in `choices[0].message.content`), its error body, or no
 * answer at all. Records the requests it got.
 */
export async function startOpenAiStandIn(behaviour: () => Behaviour) {
  const requests: { headers: http.IncomingHttpHeaders; body: any }[] = [];
  const open = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: JSON.parse(raw) });
      const b = behaviour();
      if (req.url !== '/v1/chat/completions') return res.writeHead(404).end();
      if (b.kind === 'hang') return void open.add(res);
      if (b.kind === 'error') {
        return res
          .writeHead(b.status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: b.message, type: 'server_error', code: null } }));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'chatcmpl-test',
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: 'stand-in',
          choices: [
            {
              index: 0,
              finish_reason: 'stop',
              message: {
                role: 'assistant',
                content: JSON.stringify({ variables: b.variables }),
                refusal: null,
              },
            },
          ],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
