import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  /** The body as received, for checking signatures under other secrets (`signedBy`). */
  raw: string;
  body: any;
  /** Checked by the standardwebhooks library, not by the service's own code. */
  verified: boolean;
  answeredWith: number;
  /** The W3C trace context the sender propagated, when tracing is on. */
  traceparent: string | undefined;
}

type Reply = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

/**
 * Which of a message's signatures (`v1,<a> v1,<b>`, in order) the standardwebhooks library
 * accepts under `secret`: e.g. `[true, false]` when the first was made with it.
 */
export function signedBy(message: ReceivedWebhook, secret: string): boolean[] {
  return message.signature.split(' ').map((signature) => {
    try {
      new Webhook(secret).verify(message.raw, {
        'webhook-id': message.id,
        'webhook-timestamp': message.timestamp,
        'webhook-signature': signature,
      });
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * A real HTTP receiver on loopback. `reply` decides each answer (default 204); every request
 * is recorded with whether its signature verifies under the subscription's secret.
 */
export async function startWebhookReceiver(
  reply: (request: ReceivedWebhook, count: number) => Reply = () => ({ status: 204 }),
  port = 0,
) {
  const received: ReceivedWebhook[] = [];
  let secret = '';
  /** Requests answered 'hang', until `answerHanging`. */
  const hanging = new Map<http.ServerResponse, ReceivedWebhook>();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const headers = {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      };
      let verified = false;
      try {
        new Webhook(secret).verify(raw, headers);
        verified = true;
      } catch {
        verified = false;
      }
      const record: ReceivedWebhook = {
        id: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        signature: headers['webhook-signature'],
        raw,
        body: JSON.parse(raw),
        verified,
        answeredWith: 0,
        traceparent: req.headers.traceparent as string | undefined,
      };
      received.push(record);
      const answer = reply(record, received.length);
      if (answer === 'hang') {
        hanging.set(res, record);
        return;
      }
      record.answeredWith = answer.status;
      res.writeHead(answer.status, answer.headers).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/hooks`,
    port: address.port,
    received,
    /** Successful deliveries only (2xx answers). */
    delivered: () => received.filter((r) => r.answeredWith >= 200 && r.answeredWith < 300),
    useSecret(value: string) {
      secret = value;
    },
    /** Answers the requests held so far (`'hang'`) with `status`. */
    answerHanging(status = 204) {
      for (const [res, record] of hanging) {
        record.answeredWith = status;
        res.writeHead(status).end();
      }
      hanging.clear();
    },
    async close() {
      for (const res of hanging.keys()) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls until the condition holds (the delivery worker runs in the background). */
export async function eventually<T>(
  check: () => T | Promise<T>,
  timeoutMs = 15_000,
): Promise<Exclude<NonNullable<T>, false>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== false && value !== undefined && value !== null)
        return value as Exclude<NonNullable<T>, false>;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw lastError instanceof Error ? lastError : new Error('condition not met in time');
}
