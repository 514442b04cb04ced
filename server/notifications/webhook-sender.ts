import { createHmac } from 'node:crypto';
import dns from 'node:dns';
import { Agent, request } from 'undici';
import { parseRetryAfter } from '../../domain/notifications/retry-policy.ts';
import { isPublicAddress, webhookUrlProblem } from '../../domain/notifications/webhook-address.ts';

export interface WebhookResult {
  statusCode: number | null;
  retryAfterSeconds?: number;
  error: string | null;
  durationMs: number;
}

/** Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the secret's bytes. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * A connection pool whose DNS answers are checked at connect time, so a host name cannot
 * lead to a private address (DNS rebinding included) unless private networks are allowed.
 */
export function createWebhookAgent(allowPrivateNetworks: boolean): Agent {
  const lookup = ((hostname: string, options: dns.LookupOptions, callback: (...args: any[]) => void) => {
    dns.lookup(hostname, options, (error, address, family) => {
      if (error) return callback(error);
      const addresses = Array.isArray(address) ? address.map((a) => a.address) : [address as string];
      if (!allowPrivateNetworks && addresses.some((a) => !isPublicAddress(a))) {
        return callback(new Error(`refused: ${hostname} resolves to a private or loopback address`));
      }
      callback(null, address, family);
    });
  }) as unknown as typeof dns.lookup;
  return new Agent({ connect: { lookup }, keepAliveTimeout: 10_000 });
}

/**
 * One POST of one event. Never follows redirects; only a 2xx counts as delivered (the
 * caller decides about retries). The signature is made for this attempt's timestamp.
 */
export async function sendWebhook(options: {
  agent: Agent;
  url: string;
  secret: string;
  eventId: string;
  body: string;
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  /** Gives up early (the instance is stopping). */
  signal?: AbortSignal;
}): Promise<WebhookResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  // The rule of creation again (rows may predate it): literal addresses never reach the DNS lookup above.
  const refusal = webhookUrlProblem(options.url, options.allowPrivateNetworks);
  if (refusal) return { statusCode: null, error: `refused: the URL ${refusal}`, durationMs: elapsed() };
  const timestamp = Math.floor(Date.now() / 1000);
  try {
    const response = await request(options.url, {
      method: 'POST',
      dispatcher: options.agent,
      signal: options.signal
        ? AbortSignal.any([AbortSignal.timeout(options.timeoutMs), options.signal])
        : AbortSignal.timeout(options.timeoutMs),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'deck-service-webhooks/1',
        'webhook-id': options.eventId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(options.secret, options.eventId, timestamp, options.body),
      },
      body: options.body,
    });
    await response.body.dump({ limit: 64 * 1024 });
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    const retryAfter = response.headers['retry-after'];
    return {
      statusCode: response.statusCode,
      retryAfterSeconds: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter),
      error: ok ? null : `receiver answered ${response.statusCode}`,
      durationMs: elapsed(),
    };
  } catch (error) {
    const e = error as Error & { cause?: Error };
    const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError';
    const message = timedOut ? `no answer within ${options.timeoutMs} ms` : (e.cause?.message ?? e.message);
    return { statusCode: null, error: message, durationMs: elapsed() };
  }
}
