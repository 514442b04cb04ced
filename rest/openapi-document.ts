import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { z } from 'zod';
import manifest from '../package.json' with { type: 'json' };
import { appRouter } from '../routers/app-router.ts';
import { addWebhooks } from './openapi-webhooks.ts';
import { problemSchema } from './problem.ts';
import type { HandWrittenRoute, ProcedureRoute, StreamRoute } from './route.ts';
import { restRoutes } from './route-table.ts';

// Imported, not read beside this file: the compiled service (dist/) carries its own copy.
const { version } = manifest;

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input: malformed JSON, a malformed id, or fields that fail validation (see `issues`)',
  401: 'No valid session cookie or API key (at login: wrong e-mail or password)',
  403:
    'The caller’s access does not cover the route (`x-access` names what it needs), or a state-changing ' +
    'request from another site (Origin / Sec-Fetch-Site) is refused',
  404: 'No such resource in the caller’s organization',
  408: 'The request did not arrive in time: a body from which no byte arrived for UPLOAD_IDLE_TIMEOUT_MS',
  409: 'Conflicts with the current state of the resource',
  413: 'Request body too large',
  415: 'Unsupported Content-Type',
  422: 'The content cannot be processed within its limits (e.g. a contract too long or too slow to analyse)',
  429:
    'Too many requests (RATE_LIMIT_PER_MINUTE per caller, HEAVY_LIMIT_PER_MINUTE per organization), or an ' +
    'upload or body past its caller’s or organization’s share of upload memory; see the Retry-After header',
  500: 'Unexpected error',
  503: 'A dependency (database, object store) is unavailable; try again',
};

/**
 * The two kinds of caller (api.md, "Who may do what"): a user's `session` cookie, or an API key
 * as a bearer token. Every protected operation lists both, as alternatives.
 */
const SECURITY_SCHEMES = {
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'session',
    description:
      'The `session` cookie `POST /auth/login` sets. It expires after SESSION_MAX_AGE_HOURS and is renewed at ' +
      'most once an hour: then any answer carries `Set-Cookie` with the same session.',
  },
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'dk_…',
    description: 'An organization’s API key: `Authorization: Bearer dk_…`. With a cookie too, the key wins.',
  },
} as const;
/** Every signed-in POST takes it (api.md, "Idempotent retries"; rest/idempotency.ts). */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the first 2xx/4xx answer to this key is kept 24 h and replayed (header ' +
    '`Idempotent-Replayed: true`) for the same request; 422 IDEMPOTENCY_KEY_REUSED for another ' +
    'request, 409 IDEMPOTENCY_KEY_IN_USE while the first still runs',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
};

/** What each tag groups, declared once (every tag an operation uses must be here). */
const TAGS: Record<string, string> = {
  auth: 'Signing in and out, the current caller, the password',
  decks: 'Sales presentation decks: the container of everything else',
  branding: 'A deck’s colours, fonts, logo, avatar and chat texts',
  slides: 'A deck’s slides, their order, pricing (product data) and narration audio',
  'action-configs': 'Call-to-action templates of a deck, drafted and published',
  faqs: 'Questions and canned answers of a deck, with spoken audio',
  intro: 'The spoken introduction of a deck',
  generation: 'Narration jobs that speak every slide’s script',
  exports: 'A deck as a file to open without the service: PowerPoint, PDF or a narrated video',
  images: 'The organization’s image library',
  'knowledge base': 'Documents uploaded for the organization’s knowledge base',
  contracts: 'Contract import: the variables of a template or a filled-in contract',
  voices: 'The voices narration can use, and their samples',
  notifications: 'The event log, subscriptions (webhook, e-mail, log) and their deliveries',
  users: 'The organization’s members and their roles',
  'api-keys': 'The organization’s API keys, for servers and integrations',
};

/** The response headers the facade sends (rest/rate-limit.ts, rest/problem.ts, rest/idempotency.ts). */
const HEADERS = {
  'RateLimit-Limit': {
    description:
      'Requests the caller may make in the window (RATE_LIMIT_PER_MINUTE); on every answer to a signed-in caller',
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window; on every answer to a signed-in caller',
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Reset': {
    description: 'Seconds until the window resets; on every answer to a signed-in caller',
    schema: { type: 'integer', minimum: 0 },
  },
  'Idempotent-Replayed': {
    description:
      'Only on an answer replayed for a POST repeated with its Idempotency-Key: this answer is the first one, kept',
    schema: { type: 'string', enum: ['true'] as string[] },
  },
} as const;
/** On a 429 always (past a limit, when to come back is known); on a 503 when the service knows. */
const RETRY_AFTER = {
  description: 'Seconds to wait before trying again',
  schema: { type: 'integer', minimum: 0 },
};
const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] as const;
const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });
/** Answers a repeat with the same Idempotency-Key gets again: the 2xx, and the 4xx the procedure gave. */
const REPLAYED_STATUSES = new Set([400, 404, 409, 422]);

type Operation = {
  'x-access'?: string;
  security?: unknown[];
  tags?: string[];
  parameters?: { in: string }[];
  requestBody?: { required?: boolean };
  responses: Record<string, { headers?: Record<string, unknown> } | undefined>;
};

/** Who integrators write to about this service (`API_CONTACT_EMAIL`, `API_CONTACT_URL`). */
export interface ApiContact {
  email?: string;
  url?: string;
}

/**
 * The OpenAPI 3.1 document of every /api route, generated from the procedures and then
 * brought in line with what the REST facade really answers: each operation's own success
 * status (201, 202), problem-details error responses, and the `session` cookie scheme.
 */
export function buildOpenApiDocument(options: { contact?: ApiContact } = {}): OpenAPIObject {
  const document = generateOpenApiDocument(appRouter, {
    title: 'Deck service API',
    description:
      'Manage sales presentation decks. Sign in with `POST /api/auth/login`; the `session` cookie it sets ' +
      'authenticates every other route, as does an API key sent as `Authorization: Bearer dk_…`. Errors are RFC 9457 problem details (`application/problem+json`). ' +
      'The same procedures are served to TypeScript clients over tRPC at `/trpc`.',
    version,
    baseUrl: '/api',
    securitySchemes: SECURITY_SCHEMES,
    // The routes that are not procedures, and the streams, from the same table the dispatcher serves.
    paths: { ...handWrittenPaths(), ...streamPaths() },
  });
  document.info.contact = { name: 'The operator of this deck service', ...options.contact };
  // The project grants no licence (package.json: UNLICENSED): the document says so rather than invent
  // one; `LicenseRef-` is SPDX's form for terms of one's own.
  document.info.license = { name: 'Proprietary: no licence granted', identifier: 'LicenseRef-Proprietary' };

  const problemJsonSchema = z.toJSONSchema(problemSchema) as Record<string, unknown>;
  delete problemJsonSchema.$schema;
  const schemas = (document.components?.schemas ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(schemas)) if (name.startsWith('error.')) delete schemas[name];
  schemas.Problem = problemJsonSchema;

  const responses: Record<string, unknown> = {};
  for (const [status, description] of Object.entries(ERROR_DESCRIPTIONS)) {
    const retryAfter = status === '429' || status === '503';
    responses[`Problem${status}`] = {
      description,
      headers: {
        ...Object.fromEntries(RATE_LIMIT_HEADERS.map((name) => [name, headerRef(name)])),
        ...(retryAfter ? { 'Retry-After': { ...RETRY_AFTER, required: status === '429' } } : {}),
        ...(REPLAYED_STATUSES.has(Number(status))
          ? { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') }
          : {}),
      },
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    };
  }
  document.components = {
    ...document.components,
    schemas,
    responses,
    headers: HEADERS,
  } as unknown as OpenAPIObject['components'];

  const used = new Set<string>();
  for (const entry of restRoutes) {
    const { route, successStatus, access } = entry;
    const operation = (document.paths as Record<string, Record<string, Operation>>)[route.path]?.[
      route.method.toLowerCase()
    ];
    if (!operation) continue;
    for (const tag of operation.tags ?? []) used.add(tag);
    const success = operation.responses['200'] ?? operation.responses[String(successStatus)];
    const statuses = errorStatusesOf(operation, route.method, route.errorResponses);
    const takesKey = route.method === 'POST' && access !== 'public';
    if (takesKey) operation.parameters = [...(operation.parameters ?? []), IDEMPOTENCY_KEY_PARAMETER];
    // Sign-in needs no caller: an empty list says so (no list would mean "as the document says").
    if (access === 'public') operation.security = [];
    // A JSON body the route reads as `{}` when none is sent is not required (`readJsonObjectBody`, rest/admission.ts).
    if (operation.requestBody && entry.kind === 'json') operation.requestBody.required = bodyRequired(entry);
    // Who may call it (api.md, "Who may do what"): public, user, read, write, admin or owner.
    operation['x-access'] = access;
    if (access !== 'public' && access !== 'read') statuses.push(403);
    operation.responses = {
      [String(successStatus)]: success && {
        ...success,
        headers: {
          ...success.headers,
          ...(access === 'public'
            ? {}
            : Object.fromEntries(RATE_LIMIT_HEADERS.map((name) => [name, headerRef(name)]))),
          ...(takesKey ? { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') } : {}),
          ...((entry.kind === 'json' || entry.kind === 'multipart') && entry.location
            ? {
                Location: {
                  description: `${successStatus === 202 ? 'Where the accepted job is followed' : 'The created resource'}: \`/api${entry.location.replace(/\{[\w.]+\}/g, '{id}')}\``,
                  required: true,
                  schema: { type: 'string', format: 'uri-reference' },
                },
              }
            : {}),
        },
      },
    };
    for (const status of new Set(statuses)) {
      operation.responses[String(status)] = { $ref: `#/components/responses/Problem${status}` } as never;
    }
  }
  const undeclared = [...used].filter((tag) => !TAGS[tag]);
  if (undeclared.length > 0) throw new Error(`OpenAPI tags without a description: ${undeclared.join(', ')}`);
  document.tags = Object.entries(TAGS)
    .filter(([name]) => used.has(name))
    .map(([name, description]) => ({ name, description }));
  addWebhooks(document);
  return document;
}

/**
 * A POST may be sent without a body when every field is optional (sign-out, a secret rotation):
 * it reads as `{}`. A PUT or PATCH without one is refused ("Send at least one field to change").
 */
function bodyRequired(route: ProcedureRoute): boolean {
  if (route.route.method !== 'POST') return true;
  return Object.entries(route.shape).some(
    ([name, schema]) =>
      !route.pathParameters.includes(name) && !(schema as z.ZodType).safeParse(undefined).success,
  );
}

const SERVER_PLACEHOLDER = 'urn:deck-service:server';

/**
 * The document as served: its one `servers` entry absolute (tools such as Prism and orval do not
 * resolve a relative one), at PUBLIC_URL when it is set, else at the origin the request came to
 * (Koa's `ctx.protocol` and `ctx.host`, which honour X-Forwarded-* only with TRUST_PROXY). Serialised once;
 * each answer only puts its origin in.
 */
export function servedDocument(document: OpenAPIObject, publicUrl?: string): (origin: string) => string {
  const [before, after] = JSON.stringify({ ...document, servers: [{ url: SERVER_PLACEHOLDER }] }).split(
    JSON.stringify(SERVER_PLACEHOLDER),
  ) as [string, string];
  return (origin) => `${before}${JSON.stringify(`${publicUrl ?? origin}/api`)}${after}`;
}

/** The hand-written routes' operations, in zod-openapi's form (as trpc-to-openapi makes them). */
function handWrittenPaths() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const entry of restRoutes.filter((r): r is HandWrittenRoute => r.kind === 'hand-written')) {
    const { route, response } = entry;
    paths[route.path] = {
      ...paths[route.path],
      [route.method.toLowerCase()]: {
        operationId: route.operationId,
        summary: route.summary,
        description: route.description,
        tags: route.tags,
        ...(route.protect === false
          ? {}
          : { security: Object.keys(SECURITY_SCHEMES).map((name) => ({ [name]: [] })) }),
        requestParams: { path: z.object(entry.parameters as Record<string, z.ZodType>) },
        responses: {
          [entry.successStatus]: {
            description: response.description,
            content: { [response.contentType]: { schema: { type: 'string', format: 'binary' } } },
          },
        },
      },
    };
  }
  return paths as NonNullable<Parameters<typeof generateOpenApiDocument>[1]['paths']>;
}

/** The stream routes' operations (`meta.stream`): query parameters, `Last-Event-ID`, and SSE. */
function streamPaths() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const entry of restRoutes.filter((r): r is StreamRoute => r.kind === 'stream')) {
    const { route } = entry;
    paths[route.path] = {
      get: {
        operationId: route.operationId,
        summary: route.summary,
        description: route.description,
        tags: route.tags,
        security: Object.keys(SECURITY_SCHEMES).map((name) => ({ [name]: [] })),
        requestParams: {
          query: z.object(entry.shape as Record<string, z.ZodType>),
          header: z.object({
            'Last-Event-ID': z.string().max(100).optional().meta({
              description:
                'The id of the last event received (a browser’s EventSource sends it when it reconnects): resume after it; wins over `lastEventId`',
            }),
          }),
        },
        responses: {
          200: {
            description:
              'Server-Sent Events, one per event: `id: <event id>`, `event: <eventType>`, `data: <the Event, as JSON>`; a `: keep-alive` comment at least every 15 s',
            content: {
              'text/event-stream': {
                schema: {
                  type: 'string',
                  example:
                    'id: 0190f3c4-5a6b-7c8d-9e0f-112233445566\nevent: deck.created\ndata: {"id":"0190f3c4-5a6b-7c8d-9e0f-112233445566","eventType":"deck.created",…}\n\n',
                },
              },
            },
          },
        },
      },
    };
  }
  return paths as NonNullable<Parameters<typeof generateOpenApiDocument>[1]['paths']>;
}

function errorStatusesOf(operation: Operation, method: string, declared: unknown): number[] {
  const statuses = new Set<number>([400, 500, 503]);
  // The same-origin guard (rest/middleware.ts) answers every unsafe method.
  if (method !== 'GET') statuses.add(403);
  if (operation.security?.length) {
    statuses.add(401);
    // The rate limits; and a POST's Idempotency-Key reused with another request (422).
    statuses.add(429);
    if (method === 'POST') statuses.add(422);
  }
  // A write meeting a concurrent change of the same rows (domain/concurrent-change.ts), and a
  // POST's Idempotency-Key still running.
  if (method !== 'GET') statuses.add(409);
  if (operation.parameters?.some((p) => p.in === 'path')) statuses.add(404);
  // Every POST, PUT and PATCH reads a body if one is sent, even where the operation takes none.
  if (operation.requestBody || ['POST', 'PUT', 'PATCH'].includes(method)) {
    statuses.add(408);
    statuses.add(413);
    statuses.add(415);
  }
  // A procedure names its own further outcomes (409, 429, …) in `openapi.errorResponses`.
  const extra = Array.isArray(declared) ? declared : Object.keys(declared ?? {}).map(Number);
  for (const status of extra) statuses.add(Number(status));
  return [...statuses].sort((a, b) => a - b);
}
