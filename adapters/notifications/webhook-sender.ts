import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import dns from 'node:dns';
import type { Agent } from 'undici';
import { parseRetryAfter } from '../../domain/notifications/retry-policy.ts';
import { isPublicAddress, webhookUrlProblem } from '../../domain/notifications/webhook-address.ts';

export interface WebhookResult {
  statusCode: number | null;
  retryAfterSeconds?: number;
  error: string | null;
  durationMs: number;
  /** The first `RESPONSE_BODY_KEPT_BYTES` of the answer, as text; null without an answer. */
  responseBody: string | null;
}

/** How much of a receiver's answer is kept in the attempt log (api.md: the first 2 KB). */
export const RESPONSE_BODY_KEPT_BYTES = 2048;
/** Past this the answer is not read further (the connection is dropped rather than drained). */
const RESPONSE_BODY_READ_LIMIT = 64 * 1024;

/**
 * The first `keep` bytes of a body as text, reading the rest up to `limit` so the connection can
 * be reused. NUL is dropped: PostgreSQL text cannot hold it, and a receiver may send anything.
 */
async function firstBytesOf(body: AsyncIterable<Buffer> & { destroy(): void }, keep: number, limit: number) {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let readBytes = 0;
  for await (const chunk of body) {
    readBytes += chunk.length;
    if (keptBytes < keep) {
      const part = chunk.subarray(0, keep - keptBytes);
      kept.push(part);
      keptBytes += part.length;
    }
    if (readBytes > limit) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(kept).toString('utf8').replaceAll('\u0000', '');
}

/** Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the secret's bytes. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', signingKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** Keys of the secrets in use: importing raw bytes as a key cost half of each send (profiled). */
const signingKeys = new Map<string, KeyObject>();
const SIGNING_KEYS_KEPT = 10_000;

function signingKey(secret: string): KeyObject {
  let key = signingKeys.get(secret);
  if (!key) {
    // Past the bound the map starts again: old secrets (rotated, deleted) do not pile up.
    if (signingKeys.size >= SIGNING_KEYS_KEPT) signingKeys.clear();
    key = createSecretKey(Buffer.from(secret.replace(/^whsec_/, ''), 'base64'));
    signingKeys.set(secret, key);
  }
  return key;
}

/**
 * A connection pool whose DNS answers are checked at connect time, so a host name cannot
 * lead to a private address (DNS rebinding included) unless private networks are allowed.
 * undici is loaded here, for the first webhook, not at start (`docs/performance.md`, "bench:memory").
 */
export async function createWebhookAgent(allowPrivateNetworks: boolean): Promise<Agent> {
  const { Agent } = await import('undici');
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
  /** Newest first; each gives one signature (two during a secret rotation's grace period). */
  secrets: string[];
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
  if (refusal) {
    return {
      statusCode: null,
      error: `refused: the URL ${refusal}`,
      durationMs: elapsed(),
      responseBody: null,
    };
  }
  const timestamp = Math.floor(Date.now() / 1000);
  // Loaded already: the agent's module.
  const { request } = await import('undici');
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
        'webhook-signature': options.secrets
          .map((secret) => signWebhook(secret, options.eventId, timestamp, options.body))
          .join(' '),
      },
      body: options.body,
    });
    const responseBody = await firstBytesOf(
      response.body,
      RESPONSE_BODY_KEPT_BYTES,
      RESPONSE_BODY_READ_LIMIT,
    );
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    const retryAfter = response.headers['retry-after'];
    return {
      statusCode: response.statusCode,
      retryAfterSeconds: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter),
      error: ok ? null : `receiver answered ${response.statusCode}`,
      durationMs: elapsed(),
      responseBody,
    };
  } catch (error) {
    const e = error as Error & { cause?: Error };
    const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError';
    const message = timedOut ? `no answer within ${options.timeoutMs} ms` : (e.cause?.message ?? e.message);
    return { statusCode: null, error: message, durationMs: elapsed(), responseBody: null };
  }
}
