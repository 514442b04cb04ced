import { readFileSync } from 'node:fs';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { z } from 'zod';
import { appRouter } from '../routers/app-router.ts';
import { addWebhooks } from './openapi-webhooks.ts';
import { problemSchema } from './problem.ts';
import type { HandWrittenRoute } from './route.ts';
import { restRoutes } from './route-table.ts';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

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
  sessionCookie: { type: 'apiKey', in: 'cookie', name: 'session' },
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

type Operation = {
  'x-access'?: string;
  security?: unknown[];
  parameters?: { in: string }[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
};

/**
 * The OpenAPI 3.1 document of every /api route, generated from the procedures and then
 * brought in line with what the REST facade really answers: each operation's own success
 * status (201, 202), problem-details error responses, and the `session` cookie scheme.
 */
export function buildOpenApiDocument(): OpenAPIObject {
  const document = generateOpenApiDocument(appRouter, {
    title: 'Deck service API',
    description:
      'Manage sales presentation decks. Sign in with `POST /api/auth/login`; the `session` cookie it sets ' +
      'authenticates every other route, as does an API key sent as `Authorization: Bearer dk_…`. Errors are RFC 9457 problem details (`application/problem+json`). ' +
      'The same procedures are served to TypeScript clients over tRPC at `/trpc`.',
    version,
    baseUrl: '/api',
    securitySchemes: SECURITY_SCHEMES,
    // The routes that are not procedures, from the same table the dispatcher serves.
    paths: handWrittenPaths(),
  });

  const problemJsonSchema = z.toJSONSchema(problemSchema) as Record<string, unknown>;
  delete problemJsonSchema.$schema;
  const schemas = (document.components?.schemas ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(schemas)) if (name.startsWith('error.')) delete schemas[name];
  schemas.Problem = problemJsonSchema;

  const responses: Record<string, unknown> = {};
  for (const [status, description] of Object.entries(ERROR_DESCRIPTIONS)) {
    responses[`Problem${status}`] = {
      description,
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    };
  }
  document.components = { ...document.components, schemas, responses } as OpenAPIObject['components'];

  for (const { route, successStatus, access } of restRoutes) {
    const operation = (document.paths as Record<string, Record<string, Operation>>)[route.path]?.[
      route.method.toLowerCase()
    ];
    if (!operation) continue;
    const success = operation.responses['200'] ?? operation.responses[String(successStatus)];
    const statuses = errorStatusesOf(operation, route.method, route.errorResponses);
    if (route.method === 'POST' && operation.security?.length) {
      operation.parameters = [...(operation.parameters ?? []), IDEMPOTENCY_KEY_PARAMETER];
    }
    // Who may call it (api.md, "Who may do what"): public, user, read, write, admin or owner.
    operation['x-access'] = access;
    if (access !== 'public' && access !== 'read') statuses.push(403);
    operation.responses = { [String(successStatus)]: success };
    for (const status of new Set(statuses)) {
      operation.responses[String(status)] = { $ref: `#/components/responses/Problem${status}` };
    }
  }
  addWebhooks(document);
  return document;
}

/** The hand-written routes' operations, in zod-openapi's form (as trpc-to-openapi makes them). */
function handWrittenPaths() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const entry of restRoutes.filter((r): r is HandWrittenRoute => r.kind === 'hand-written')) {
    const { route, response } = entry;
    paths[route.path] = {
      ...paths[route.path],
      [route.method.toLowerCase()]: {
        operationId: `${route.method.toLowerCase()}${route.path.replace(/\W+(\w)?/g, (_m, c = '') => c.toUpperCase())}`,
        summary: route.summary,
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

function errorStatusesOf(operation: Operation, method: string, declared: unknown): number[] {
  const statuses = new Set<number>([400, 500, 503]);
  // The same-origin guard (rest/middleware.ts) answers every unsafe method.
  if (method !== 'GET') statuses.add(403);
  if (operation.security?.length) {
    statuses.add(401);
    // The rate limits; and a POST's Idempotency-Key (reused: 422, still running: 409).
    statuses.add(429);
    if (method === 'POST') {
      statuses.add(409);
      statuses.add(422);
    }
  }
  if (operation.parameters?.some((p) => p.in === 'path')) statuses.add(404);
  if (operation.requestBody) {
    statuses.add(408);
    statuses.add(413);
    statuses.add(415);
  }
  // A procedure names its own further outcomes (409, 429, …) in `openapi.errorResponses`.
  const extra = Array.isArray(declared) ? declared : Object.keys(declared ?? {}).map(Number);
  for (const status of extra) statuses.add(Number(status));
  return [...statuses].sort((a, b) => a - b);
}
