import { contractMismatch } from './openapi-contract.ts';

export interface HttpResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body (undefined when the body is not JSON). */
  body: any;
}

/**
 * A tiny HTTP client with a cookie jar, speaking to the app over real HTTP (fetch).
 * Cookies are kept by name, as a browser would for one site. Every answer is checked against
 * the OpenAPI document (`openapi-contract.ts`); one that does not match it throws.
 */
export class HttpClient {
  readonly baseUrl: string;
  readonly cookies = new Map<string, string>();
  /**
   * Why this client's answers are not checked against the document, when a test reads rows it
   * wrote by SQL that the service never writes (events with synthetic payloads); otherwise null.
   */
  uncheckedBecause: string | null = null;

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl;
  }

  get cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async request(
    method: string,
    path: string,
    options: { json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {},
  ): Promise<HttpResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookies.size > 0) headers.cookie = this.cookieHeader;
    let body = options.body;
    if (options.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.json);
    }
    const response = await fetch(new URL(path, this.baseUrl), { method, headers, body, redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index);
      const value = pair!.slice(index + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    // A stream (Server-Sent Events) never ends: its first chunk (the opening comment) stands for it.
    const text = response.headers.get('content-type')?.startsWith('text/event-stream')
      ? await firstChunk(response)
      : await response.text();
    // Every answer must be one the OpenAPI document describes: a mismatch fails the test that asked.
    const mismatch = this.uncheckedBecause
      ? null
      : contractMismatch({
          method,
          path,
          status: response.status,
          header: (name) => response.headers.get(name),
          text,
        });
    if (mismatch) throw new Error(mismatch);
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, { headers });
  }
  post(path: string, json?: unknown) {
    return this.request('POST', path, { json });
  }
  put(path: string, json?: unknown) {
    return this.request('PUT', path, { json });
  }
  patch(path: string, json?: unknown) {
    return this.request('PATCH', path, { json });
  }
  delete(path: string) {
    return this.request('DELETE', path);
  }
  /** A multipart/form-data POST with one file part (named `file` unless told otherwise). */
  upload(path: string, file: { name: string; bytes: Buffer; type?: string }, part = 'file') {
    const form = new FormData();
    form.append(
      part,
      new Blob([new Uint8Array(file.bytes)], { type: file.type ?? 'application/octet-stream' }),
      file.name,
    );
    return this.request('POST', path, { body: form });
  }
}

async function firstChunk(response: Response): Promise<string> {
  const reader = response.body!.getReader();
  const { value } = await reader.read();
  await reader.cancel();
  return new TextDecoder().decode(value);
}

/** Asserts the RFC 9457 shape every error shares; returns the body for further checks. */
export function expectProblem(response: HttpResponse, status: number, code: string) {
  if (response.status !== status || response.body?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${response.status}: ${response.text}`);
  }
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('application/problem+json')) throw new Error(`problem content-type, got ${type}`);
  const body = response.body as Record<string, unknown>;
  for (const key of ['type', 'title', 'status', 'code', 'detail']) {
    if (!(key in body)) throw new Error(`problem body lacks ${key}: ${response.text}`);
  }
  if (body.status !== status) throw new Error(`problem status ${String(body.status)} != ${status}`);
  if (/\([^\s()]+:\d+:\d+\)|\bat [^\s()]+:\d+:\d+/.test(response.text))
    throw new Error(`stack trace in problem body: ${response.text}`);
  return body as {
    type: string;
    title: string;
    status: number;
    code: string;
    detail: string;
    issues?: any[];
  };
}

/** A client that sends an API key with every request, and no cookie. */
export function keyClient(url: string, secret: string): HttpClient {
  const client = new HttpClient(url);
  const request = client.request.bind(client);
  client.request = (method, path, options = {}) =>
    request(method, path, { ...options, headers: { ...options.headers, authorization: `Bearer ${secret}` } });
  return client;
}
