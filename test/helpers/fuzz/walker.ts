import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { ERROR_KINDS } from '../../../domain/errors.ts';
import { contractMismatch } from '../openapi-contract.ts';
import type { TestApp } from '../test-app.ts';
import { differences, type Fingerprint, type Fingerprinter } from './fingerprint.ts';
import type { Operation, RequestSpec } from './requests.ts';
import { typeViolation } from './schema.ts';
import { hasForeignRef, RawJson, Ref } from './values.ts';
import {
  describeRequest,
  describeResponse,
  send,
  toWire,
  type WireRequest,
  type WireResponse,
} from './wire.ts';
import { type ForeignSecrets, type Organization, resolveRef, restoreOrganization } from './world.ts';

/** One broken rule, with the exchange that broke it. */
export interface Violation {
  /** Short stable name of the rule (`5xx`, `problem-shape`, `changed-on-4xx`, …). */
  rule: string;
  message: string;
  request: string;
  response: string;
}

export interface WalkerOptions {
  t: TestApp;
  own: Organization;
  ownMarker: string;
  foreign: Organization;
  secrets: ForeignSecrets;
  fingerprinter: Fingerprinter;
  /** Slower than this is a violation (a stalled event loop looks like this). */
  slowMs: number;
  /** Give up on an answer after this long. */
  timeoutMs: number;
  /** The served OpenAPI document (for `$ref` in schemas). */
  document: Record<string, any>;
}

/** The problem `code` each status answers with: the service's one error table, read by status. */
const CODE_BY_STATUS: Record<number, string> = Object.fromEntries(
  Object.values(ERROR_KINDS).map((answer) => [answer.status, answer.code]),
);

/** Internals that must never reach a client. */
const INTERNALS =
  /\bat \S+ \(\S+:\d+:\d+\)|\bat (?:file|node):|node_modules|\.ts:\d+|violates .* constraint|syntax error at or near|invalid input syntax for type|duplicate key value|relation "|column "|ZodError|TRPCError|ECONNREFUSED|MikroORM/;

const UNSENDABLE = new Set([
  'ERR_INVALID_CHAR',
  'ERR_UNESCAPED_CHARACTERS',
  'ERR_INVALID_HTTP_TOKEN',
  'ERR_HTTP_INVALID_HEADER_VALUE',
]);

/** Operations that start or end a session. */
const SESSION_PATHS = new Set(['/auth/login', '/auth/logout']);

interface Exchange {
  request: WireRequest;
  response?: WireResponse;
  error?: Error;
  before: Fingerprint;
  after: Fingerprint;
  /** What the service logged meanwhile (the cause of a 5xx). */
  serverLog: string;
}

/**
 * Sends generated requests and judges every answer against the rules every operation shares.
 * Keeps the caller's resources in existence between requests; the other organization's are
 * created once and must never change.
 */
export class Walker {
  readonly options: WalkerOptions;
  private dirty = false;
  private spareCookie?: string;
  /**
   * The other organization's ids the walk has sent: once sent, the caller may have stored one
   * as plain text (a title), so its later echo is no leak. Its names carry a marker word the
   * walk never sends, which catches leaks of content.
   */
  private readonly sent = new Set<string>();
  /** The state after the last request, valid until something else changes the database. */
  private lastFingerprint?: Fingerprint;
  private foreignBaseline?: Fingerprint;
  skipped = 0;
  /** Answers checked against the OpenAPI document (each answer is). */
  checkedAgainstDocument = 0;
  readonly timings = {
    fingerprint: 0,
    request: 0,
    exchanges: 0,
    restore: 0,
    cookie: 0,
    wire: 0,
    before: 0,
    total: 0,
  };
  /** How often each operation answered each status (for judging what the walk reaches). */
  readonly statuses = new Map<string, Map<number, number>>();

  constructor(options: WalkerOptions) {
    this.options = options;
  }

  async start(): Promise<void> {
    this.foreignBaseline = await this.options.fingerprinter.take();
  }

  /** Runs one generated request (and its twin, when it names the other organization's ids). */
  async run(operation: Operation, spec: RequestSpec): Promise<Violation[]> {
    const started = performance.now();
    try {
      return await this.runTimed(operation, spec);
    } finally {
      this.timings.total += performance.now() - started;
    }
  }

  private async runTimed(operation: Operation, spec: RequestSpec): Promise<Violation[]> {
    const first = await this.exchange(operation, spec, (ref) => this.resolve(ref));
    if (!first) return [];
    const violations = this.judge(operation, spec, first);
    if (first.response && hasForeignRef([spec.params, spec.query, spec.body])) {
      // The same request with the other organization's ids swapped for ids that exist nowhere:
      // the answer must be the same (a foreign resource is indistinguishable from a missing one).
      const replacements = new Map<string, string>();
      const twin = await this.exchange(operation, spec, async (ref) => {
        const value = await this.resolve(ref);
        if (ref.owner !== 'foreign') return value;
        return this.disguise(value, replacements);
      });
      if (twin?.response) {
        violations.push(...this.judge(operation, spec, twin));
        const a = normalise(first.response);
        const b = normalise(twin.response);
        // A first request that succeeded changed the world the twin runs in: a 409 then is the
        // twin meeting what the first created (the same slideId, say), not a difference in ids.
        const conflictWithFirst = first.response.status < 300 && twin.response.status === 409;
        if (a !== b && !conflictWithFirst) {
          violations.push({
            rule: 'foreign-differs-from-missing',
            message:
              'the answer for the other organization’s id differs from the answer for an id that does not exist',
            request: describeRequest(first.request),
            response: `${describeResponse(first.response)}\n  missing-id twin: ${describeResponse(twin.response)}`,
          });
        }
      }
    }
    return violations;
  }

  /** The caller's Cookie header: its own session, a spare one (sign-in/out), or none. */
  private async cookieFor(operation: Operation, spec: RequestSpec): Promise<string | undefined> {
    if (spec.actor === 'anonymous') return undefined;
    if (!SESSION_PATHS.has(operation.path)) return this.options.own.cookie;
    // Signing in or out must not end the session the rest of the walk uses: these get a
    // spare session of the same user, replaced once a request may have ended it.
    if (!this.spareCookie) {
      this.lastFingerprint = undefined;
      const { own, t } = this.options;
      const client = t.client();
      const login = await client.post('/api/auth/login', { email: own.email, password: own.password });
      if (login.status !== 200) throw new Error(`spare login failed: ${login.status} ${login.text}`);
      this.spareCookie = client.cookieHeader;
    }
    return this.spareCookie;
  }

  private async resolve(ref: Ref): Promise<unknown> {
    const { t, own, foreign } = this.options;
    const value = await resolveRef(t, ref.owner === 'own' ? own : foreign, ref);
    if (ref.owner === 'foreign')
      for (const id of this.options.secrets.ids) if (String(value).includes(id)) this.sent.add(id);
    return value;
  }

  /** Swaps every id of the other organization inside a value for a fresh one (the same each time). */
  private disguise(value: unknown, replacements: Map<string, string>): unknown {
    if (Array.isArray(value)) return value.map((item) => this.disguise(item, replacements));
    if (typeof value !== 'string') return value;
    let text = value;
    for (const id of this.options.secrets.ids) {
      if (!text.includes(id)) continue;
      if (!replacements.has(id)) replacements.set(id, randomUUID());
      text = text.split(id).join(replacements.get(id)!);
    }
    return text;
  }

  private async exchange(
    operation: Operation,
    spec: RequestSpec,
    resolve: (ref: Ref) => Promise<unknown>,
  ): Promise<Exchange | undefined> {
    const { t, own, ownMarker, fingerprinter, timeoutMs } = this.options;
    const refs: Ref[] = [];
    await collectRefs([spec.params, spec.query, spec.body], async (ref) => {
      refs.push(ref);
    });
    const restoreStarted = performance.now();
    if (this.dirty) {
      const kinds = refs.filter((ref) => ref.owner === 'own').map((ref) => ref.kind);
      const { restored, stillMissing } = await restoreOrganization(t, own, ownMarker, kinds);
      if (restored) this.lastFingerprint = undefined;
      this.dirty = stillMissing;
    }
    this.timings.restore += performance.now() - restoreStarted;
    const cookieStarted = performance.now();
    const cookie = await this.cookieFor(operation, spec);
    this.timings.cookie += performance.now() - cookieStarted;
    const wireStarted = performance.now();
    // Refs resolve before sending (serializing is synchronous).
    const resolved = new Map<Ref, unknown>();
    for (const ref of refs) resolved.set(ref, await resolve(ref));
    const request = await toWire(operation, spec, (ref) => resolved.get(ref), cookie);
    this.timings.wire += performance.now() - wireStarted;
    const beforeStarted = performance.now();
    const before = this.lastFingerprint ?? (await fingerprinter.take());
    this.timings.before += performance.now() - beforeStarted;
    const logOffset = t.logs().length;
    let response: WireResponse | undefined;
    let error: Error | undefined;
    try {
      response = await send(t.url, request, timeoutMs);
    } catch (caught) {
      const code = (caught as { code?: string }).code;
      if (code && UNSENDABLE.has(code)) {
        this.skipped += 1;
        return undefined;
      }
      error = caught as Error;
      await this.waitUntilHealthy();
    }
    const fingerprintStarted = performance.now();
    const after = await fingerprinter.take();
    this.timings.fingerprint += performance.now() - fingerprintStarted;
    this.timings.request += response?.ms ?? 0;
    this.timings.exchanges += 1;
    this.lastFingerprint = after;
    if (response) {
      const counts = this.statuses.get(operation.key) ?? new Map<number, number>();
      counts.set(response.status, (counts.get(response.status) ?? 0) + 1);
      this.statuses.set(operation.key, counts);
    }
    if (response && response.status < 300 && operation.method !== 'GET') this.dirty = true;
    if (SESSION_PATHS.has(operation.path) && (!response || response.status < 300))
      this.spareCookie = undefined;
    return { request, response, error, before, after, serverLog: t.logs().slice(logOffset) };
  }

  /** After a timeout the service may still be busy: wait for it before the next request. */
  private async waitUntilHealthy(): Promise<void> {
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      try {
        const response = await fetch(new URL('/healthz', this.options.t.url), {
          signal: AbortSignal.timeout(2_000),
        });
        if (response.ok) return;
      } catch {
        // still busy
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  private judge(operation: Operation, spec: RequestSpec, exchange: Exchange): Violation[] {
    const { request, response, error, before, after, serverLog } = exchange;
    const violations: Violation[] = [];
    const requestText = describeRequest(request);
    const logged = serverErrors(serverLog);
    const responseText = `${response ? describeResponse(response) : `no answer: ${error?.message}`}${logged ? `\n  server log: ${logged}` : ''}`;
    const violation = (rule: string, message: string) =>
      violations.push({ rule, message, request: requestText, response: responseText });

    // A server may cut a large upload short by closing the connection; anything else is a failure.
    const errorCode = (error as { code?: string } | undefined)?.code ?? '';
    const cutShort = ['ECONNRESET', 'EPIPE'].includes(errorCode) && (request.body?.length ?? 0) > 1_000_000;
    if (!response) {
      if (!cutShort) violation('no-answer', `the connection failed or timed out: ${error?.message}`);
    } else {
      const status = response.status;
      const sameRoute = spec.method === operation.method;
      if (status >= 500) violation('5xx', `answered ${status}`);
      if (response.ms > this.options.slowMs)
        violation('slow', `answered after ${Math.round(response.ms)} ms`);
      if (status >= 400) {
        const problems = problemShapeErrors(response);
        if (problems.length) violation('problem-shape', problems.join('; '));
      } else if (sameRoute) {
        const broken = this.documentedViolation(operation, request);
        if (broken) violation('accepted-invalid', `a body the document forbids was accepted: ${broken}`);
        const strayQuery = queryViolation(operation, spec);
        if (strayQuery)
          violation('accepted-invalid', `a query the document forbids was accepted: ${strayQuery}`);
        if (status !== operation.successStatus) {
          violation('success-status', `answered ${status}, documented ${operation.successStatus}`);
        }
        if (!String(response.headers['content-type'] ?? '').startsWith(operation.successType)) {
          violation('success-type', `success answered as ${response.headers['content-type']}`);
        }
      }
      // A body sent to an operation that takes none may be refused as such (413, 415).
      const bodyRefusal = !operation.body && spec.body.kind !== 'none' && (status === 413 || status === 415);
      // Node's own limit on the request line and headers (16 KB) holds for every route alike.
      const headerRefusal = status === 431 && request.path.length > 8 * 1024;
      if (
        sameRoute &&
        spec.actor === 'own' &&
        !operation.statuses.includes(status) &&
        !bodyRefusal &&
        !headerRefusal
      ) {
        violation('undocumented-status', `answered ${status}; documented: ${operation.statuses.join(', ')}`);
      }
      // Without a session only 401 — or a refusal of the request's form, decided before
      // anyone is looked up (malformed body or media type) — reveals nothing.
      // (A segment that is not an id may not reach the route at all: `..` is resolved away.)
      const rawSegment = Object.values(spec.params).some((segment) => !(segment instanceof Ref));
      const allowed = [401, 400, 413, 415, 431, ...(rawSegment ? [404] : [])];
      if (spec.actor === 'anonymous' && operation.secured && sameRoute && !allowed.includes(status)) {
        violation('anonymous-not-401', `a request without a session was answered ${status}`);
      }
      // Every answer, refusals included, must be one the document describes (test/helpers/openapi-contract.ts).
      const mismatch = contractMismatch({
        method: request.method,
        path: request.path,
        status,
        header: (name) => {
          const value = response.headers[name.toLowerCase()];
          return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
        },
        text: response.text,
      });
      this.checkedAgainstDocument += 1;
      // Node's 431 (a request line past 16 KB) comes before any route, for every path alike; it is
      // a problem (checked above), but no operation of the document lists it.
      if (mismatch && !headerRefusal) violation('undocumented-answer', mismatch);
      const leaked = this.leaks(request, response);
      if (leaked.length)
        violation('foreign-leak', `the answer holds the other organization’s ${leaked.join(', ')}`);
    }

    const failed = !response || response.status >= 400;
    const changed = [
      ...differences(before.tables, after.tables),
      ...(before.objects === after.objects ? [] : ['stored objects']),
    ];
    if (failed && changed.length)
      violation('changed-on-error', `a refused request changed: ${changed.join('; ')}`);
    if (!failed && (spec.method === 'GET' || spec.method === 'OPTIONS') && changed.length) {
      violation('read-changed', `a read changed: ${changed.join('; ')}`);
    }
    const baseline = this.foreignBaseline!;
    const foreignChanged = [
      ...differences(baseline.foreignTables, after.foreignTables),
      ...(baseline.foreignObjects === after.foreignObjects ? [] : ['stored objects']),
    ];
    if (foreignChanged.length) {
      violation('foreign-changed', `the other organization’s data changed: ${foreignChanged.join('; ')}`);
      // Report it once, not on every later request.
      this.foreignBaseline = after;
    }
    return violations;
  }

  /** How the JSON body sent breaks the operation's documented schema, if it does (undefined otherwise). */
  private documentedViolation(operation: Operation, request: WireRequest): string | undefined {
    if (operation.body?.mediaType !== 'application/json' || !request.body?.length) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(request.body.toString('utf8'));
    } catch {
      return undefined;
    }
    return typeViolation(value, operation.body.schema, { document: this.options.document });
  }

  /**
   * The other organization's data in an answer: its marker word (never sent, so never
   * echoed); an id the walk never sent; or one of its ids as the value of a field the service
   * fills itself (`id`, `organizationId`, `deckId`, … outside free-form JSON).
   */
  private leaks(request: WireRequest, response: WireResponse): string[] {
    const { secrets } = this.options;
    const asked = `${decodeSafely(request.path)} ${request.body?.toString('utf8') ?? ''}`;
    const found = new Set<string>();
    if (response.text.includes(secrets.marker)) found.add(`marker ${secrets.marker}`);
    for (const id of secrets.ids) {
      if (response.text.includes(id) && !asked.includes(id) && !this.sent.has(id)) found.add(`id ${id}`);
    }
    const foreignIds = new Set(secrets.ids);
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) {
        for (const item of node) visit(item);
        return;
      }
      if (node === null || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (FREE_FORM.has(key)) continue;
        if (typeof value === 'string' && ID_FIELD.test(key) && foreignIds.has(value))
          found.add(`${key} ${value}`);
        else visit(value);
      }
    };
    visit(response.json);
    return [...found];
  }
}

/**
 * How a request's query breaks what the operation documents (api.md: a query string is checked
 * like a body): a parameter it does not take, or a single-valued one given twice.
 */
function queryViolation(operation: Operation, spec: RequestSpec): string | undefined {
  const counts = new Map<string, number>();
  for (const [raw] of spec.query) {
    const name = decodeSafely(raw);
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  for (const [name, count] of counts) {
    const parameter = operation.query.find((q) => q.name === name);
    if (!parameter) return `unknown parameter ${JSON.stringify(name)}`;
    if (count > 1 && parameter.schema.type !== 'array') return `${name} given ${count} times`;
  }
  return undefined;
}

/** Fields whose value the service sets (an id), as opposed to text the caller wrote. */
const ID_FIELD = /^(id|[a-z]+Id)$/;
/** Caller-written JSON, where any key may hold anything. */
const FREE_FORM = new Set(['requirementsJson', 'payload', 'channelConfig', 'labels']);

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

async function collectRefs(value: unknown, visit: (ref: Ref) => Promise<void>): Promise<void> {
  const walk = async (node: unknown): Promise<void> => {
    if (node instanceof Ref) return visit(node);
    if (node instanceof RawJson || node === null || typeof node !== 'object') return;
    for (const child of Array.isArray(node) ? node : Object.values(node)) await walk(child);
  };
  await walk(value);
}

/** The errors a service logged, one line each (message only). */
function serverErrors(log: string): string {
  return log
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      try {
        const entry = JSON.parse(line) as {
          level?: number;
          msg?: string;
          err?: { type?: string; message?: string };
        };
        if ((entry.level ?? 0) < 50) return '';
        return `${entry.msg ?? ''}${entry.err ? `: ${entry.err.type ?? ''} ${entry.err.message ?? ''}` : ''}`.slice(
          0,
          400,
        );
      } catch {
        return line.slice(0, 200);
      }
    })
    .filter(Boolean)
    .join(' | ');
}

/** Status and body with ids and times masked, for comparing two answers (successes: status only). */
function normalise(response: WireResponse): string {
  if (response.status < 300) {
    const fields =
      response.json && typeof response.json === 'object' ? Object.keys(response.json).sort() : [];
    return `${response.status} ${fields.join(',')}`;
  }
  return `${response.status} ${response.headers['content-type'] ?? ''} ${response.text
    .replace(/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g, '<id>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '<time>')}`;
}

/** What is wrong with an error answer's RFC 9457 shape (empty when nothing is). */
export function problemShapeErrors(response: WireResponse): string[] {
  const errors: string[] = [];
  const type = String(response.headers['content-type'] ?? '');
  if (!type.startsWith('application/problem+json')) errors.push(`content-type ${type || 'missing'}`);
  const body = response.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return [...errors, 'body is not a JSON object'];
  const allowed = new Set(['type', 'title', 'status', 'code', 'detail', 'issues']);
  for (const key of Object.keys(body)) if (!allowed.has(key)) errors.push(`unexpected member ${key}`);
  for (const key of ['type', 'title', 'code', 'detail']) {
    if (typeof body[key] !== 'string' || (body[key] as string).length === 0)
      errors.push(`${key} is not a non-empty string`);
  }
  if (body.status !== response.status)
    errors.push(`status member ${String(body.status)} ≠ ${response.status}`);
  const code = CODE_BY_STATUS[response.status];
  if (code && body.code !== code) errors.push(`code ${String(body.code)} ≠ ${code}`);
  if (STATUS_CODES[response.status] && body.title !== STATUS_CODES[response.status]) {
    errors.push(`title ${String(body.title)} ≠ ${STATUS_CODES[response.status]}`);
  }
  if ('issues' in body) {
    if (response.status !== 400) errors.push(`issues on a ${response.status}`);
    const issues = body.issues;
    if (
      !Array.isArray(issues) ||
      !issues.every(
        (issue) =>
          issue &&
          typeof issue === 'object' &&
          Object.keys(issue).every((key) => key === 'path' || key === 'message') &&
          Array.isArray(issue.path) &&
          issue.path.every((step: unknown) => typeof step === 'string' || typeof step === 'number') &&
          typeof issue.message === 'string',
      )
    ) {
      errors.push('issues is not a list of {path, message}');
    }
  }
  if (INTERNALS.test(response.text))
    errors.push(`internals in the answer: ${response.text.match(INTERNALS)![0]}`);
  return errors;
}
