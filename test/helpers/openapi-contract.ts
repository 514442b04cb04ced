import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { buildOpenApiDocument } from '../../rest/openapi-document.ts';

/**
 * Every answer of the tests checked against the OpenAPI document (issue 24): the status is
 * one the operation documents, the content type one documented for that status, the JSON body
 * valid against that schema, and the documented headers present (when required) and valid.
 *
 * The validator is Ajv's JSON Schema 2020-12 class (the dialect of OpenAPI 3.1's schemas) with its
 * default settings (union types allowed without a warning), plus ajv-formats (so `format` is checked rather than ignored) and OpenAPI's
 * one extra keyword, `example`. Not openapi-backend 5.21.2: it checks the document against the
 * OpenAPI 3.0 schema, and on a 3.1 document ends up with no operations at all; it compiles with
 * Ajv's draft-07 class; and it validates `application/json` bodies only, so every
 * `application/problem+json` answer would go unchecked.
 */

/** Requests the document does not describe, on purpose, and why. */
export const NOT_DESCRIBED: readonly { prefix: string; why: string }[] = [
  { prefix: '/trpc', why: 'tRPC’s own protocol, not the REST contract' },
  { prefix: '/healthz', why: 'operators’ probe' },
  { prefix: '/readyz', why: 'operators’ probe' },
  { prefix: '/storage/', why: 'signed object addresses of the local storage driver (their own test)' },
  { prefix: '/api/openapi.json', why: 'the document itself' },
  { prefix: '/api/docs', why: 'the reference page and its assets' },
];

/** The answer as the tests see it. */
export interface Answer {
  method: string;
  /** Path and query, as sent. */
  path: string;
  status: number;
  /** A header's value, or null (fetch's `Headers.get`). */
  header(name: string): string | null;
  text: string;
}

type Json = Record<string, any>;

interface Contract {
  document: Json;
  ajv: Ajv2020;
  /** `#/components/schemas/X` refs, rewritten to the schema Ajv knows them under. */
  validators: Map<string, ValidateFunction>;
}

const SCHEMAS_ID = 'urn:deck-service:openapi-schemas';
let contract: Contract | undefined;

/** Built once per test process: the document as the app builds it, and one Ajv instance. */
function theContract(): Contract {
  if (contract) return contract;
  const text = JSON.stringify(buildOpenApiDocument()).replaceAll(
    '"#/components/schemas/',
    `"${SCHEMAS_ID}#/$defs/`,
  );
  const document = JSON.parse(text) as Json;
  // Defaults, but for union types (`type: ["string", "number"]`, valid JSON Schema): allowed
  // rather than warned about on every compile. No verdict changes.
  const ajv = new Ajv2020({ allowUnionTypes: true });
  // A CommonJS module: its function is also its `default`, which is what the types know.
  ajvFormats.default(ajv);
  // OpenAPI's annotations: `oneOf` still decides; `discriminator` only tells tools which branch to try.
  ajv.addKeyword('example');
  ajv.addKeyword('discriminator');
  ajv.addSchema({ $id: SCHEMAS_ID, $defs: document.components.schemas });
  contract = { document, ajv, validators: new Map() };
  return contract;
}

/** The document the answers are checked against (its schema refs point at Ajv's copy). */
export function contractDocument(): Json {
  return theContract().document;
}

function validatorFor(key: string, schema: unknown): ValidateFunction {
  const { ajv, validators } = theContract();
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(schema as object);
    validators.set(key, validate);
  }
  return validate;
}

/** Validates a value against a schema of the document (refs to its components allowed). */
export function schemaErrors(key: string, schema: unknown, value: unknown): string | undefined {
  const validate = validatorFor(key, schema);
  if (validate(value)) return undefined;
  return (validate.errors ?? [])
    .slice(0, 5)
    .map(
      (error) =>
        `${error.instancePath ? `${error.instancePath} ` : ''}${error.message}${paramsOf(error.params)}`,
    )
    .join('; ');
}

function paramsOf(params: Record<string, unknown>): string {
  const detail = params.additionalProperty ?? params.missingProperty ?? params.allowedValues;
  return detail === undefined ? '' : ` (${JSON.stringify(detail)})`;
}

/** The operation a method and /api path name: literal segments win over `{parameters}`. */
export function findOperation(
  method: string,
  apiPath: string,
): { template: string; operation: Json | undefined; allowed: string[] } | undefined {
  const { document } = theContract();
  const segments = apiPath.split('/');
  let best: { template: string; literal: number } | undefined;
  for (const template of Object.keys(document.paths)) {
    const parts = template.split('/');
    if (parts.length !== segments.length) continue;
    let literal = 0;
    const matches = parts.every((part, index) => {
      if (part.startsWith('{')) return segments[index] !== '';
      literal += 1;
      return part === segments[index];
    });
    if (matches && (!best || literal > best.literal)) best = { template, literal };
  }
  if (!best) return undefined;
  const item = document.paths[best.template] as Json;
  const wanted = method === 'HEAD' ? 'get' : method.toLowerCase();
  return { template: best.template, operation: item[wanted], allowed: Object.keys(item) };
}

function resolveResponse(response: Json): Json {
  const ref = response.$ref as string | undefined;
  if (!ref) return response;
  const name = ref.replace('#/components/responses/', '');
  return theContract().document.components.responses[name];
}

/** What is wrong with an answer, as a sentence naming the operation (undefined: nothing). */
export function contractMismatch(answer: Answer): string | undefined {
  // The path as sent: no URL parsing, which would resolve `..` the router takes as a value.
  const target = answer.path.replace(/^https?:\/\/[^/]*/, '');
  const path = target.split('?')[0]!;
  if (NOT_DESCRIBED.some(({ prefix }) => path === prefix || path.startsWith(prefix))) return undefined;
  const request = `${answer.method} ${answer.path.slice(0, 200)}`;
  const fail = (what: string) => `The answer to ${request} does not match /api/openapi.json: ${what}`;
  // Outside /api (and off the list) no route serves anything: it must be answered as one missing.
  const found = path.startsWith('/api/')
    ? findOperation(answer.method, path.slice('/api'.length))
    : undefined;
  if (!found?.operation) {
    // A path no operation serves is a 404, a method a path does not take a 405 (501: no route
    // takes it), all problem details; these are the service's answers to what the document omits.
    // They are counted like any request (api.md), so a caller past its limit gets a 429 instead,
    // a bad API key a 401, and an unreachable database a 503.
    const expected = [
      ...(!found ? [404] : answer.method === 'OPTIONS' ? [200, 204, 405] : [405, 501]),
      401,
      429,
      503,
    ];
    if (!expected.includes(answer.status)) {
      return fail(
        `${found ? `${found.template} has no ${answer.method}` : 'no documented path'}; answered ${answer.status}, expected ${expected.join(' or ')}`,
      );
    }
    if (answer.status >= 400) return bodyMismatch(answer, 'not-described', problemResponse(), fail);
    return undefined;
  }
  const { operation } = found;
  const name = `${operation.operationId} (${answer.method} ${found.template})`;
  const documented = operation.responses as Json;
  const response =
    documented[String(answer.status)] ?? documented[`${String(answer.status)[0]}XX`] ?? documented.default;
  if (!response) {
    return fail(`${name} answered ${answer.status}; documented: ${Object.keys(documented).join(', ')}`);
  }
  return bodyMismatch(
    answer,
    `${operation.operationId} ${answer.status}`,
    resolveResponse(response),
    (what) => fail(`${name} answered ${answer.status}: ${what}`),
  );
}

function problemResponse(): Json {
  return resolveResponse({ $ref: '#/components/responses/Problem404' });
}

function bodyMismatch(
  answer: Answer,
  key: string,
  response: Json,
  fail: (what: string) => string,
): string | undefined {
  for (const [name, declared] of Object.entries((response.headers ?? {}) as Json)) {
    const header = declared.$ref
      ? theContract().document.components.headers[declared.$ref.replace('#/components/headers/', '')]
      : declared;
    const value = answer.header(name);
    if (value === null) {
      if (header.required) return fail(`header ${name} is required and missing`);
      continue;
    }
    const schema = header.schema as Json;
    const typed =
      (schema.type === 'integer' || schema.type === 'number') && /^-?\d+(\.\d+)?$/.test(value)
        ? Number(value)
        : value;
    const errors = schemaErrors(`${key} header ${name}`, schema, typed);
    if (errors) return fail(`header ${name}: ${JSON.stringify(value)} ${errors}`);
  }
  if (answer.method === 'HEAD') return undefined;
  const content = response.content as Json | undefined;
  const contentType = answer.header('content-type');
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  if (!content) {
    if (answer.text !== '') return fail(`a body where none is documented (${contentType})`);
    return undefined;
  }
  if (!mediaType || !(mediaType in content)) {
    return fail(`content type ${contentType ?? 'missing'}; documented: ${Object.keys(content).join(', ')}`);
  }
  if (mediaType !== 'application/json' && !mediaType.endsWith('+json')) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return fail(`the body is not JSON: ${answer.text.slice(0, 200)}`);
  }
  const errors = schemaErrors(`${key} ${mediaType}`, content[mediaType].schema, body);
  return errors ? fail(`body ${errors}; body was ${answer.text.slice(0, 300)}`) : undefined;
}
