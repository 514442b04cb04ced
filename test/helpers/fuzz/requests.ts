import fc from 'fast-check';
import {
  longText,
  lookalikeStrings,
  malformedSegments,
  nonObjectBodies,
  unicodeText,
  wrongContentTypes,
} from './adversarial.ts';
import {
  applyMutation,
  branches,
  mutationArb,
  type Schema,
  type SchemaContext,
  validValue,
} from './schema.ts';
import { percentEncode, Ref, type RefKind } from './values.ts';

/** One operation of the OpenAPI document, as the walker needs it. */
export interface Operation {
  /** e.g. `POST /decks/{deckId}/slides` */
  key: string;
  method: string;
  path: string;
  pathParams: string[];
  query: { name: string; schema: Schema }[];
  body?: { mediaType: string; schema: Schema };
  /** Documented statuses. */
  statuses: number[];
  successStatus: number;
  /** The documented media type of a success (JSON, or e.g. audio/mpeg for the voice preview). */
  successType: string;
  secured: boolean;
  /** Methods the path does not have (each should be a 405). */
  otherMethods: string[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function operationsOf(document: Record<string, any>): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
    const defined = METHODS.filter((method) => item[method]);
    for (const method of defined) {
      const operation = item[method];
      const parameters: any[] = [...(item.parameters ?? []), ...(operation.parameters ?? [])];
      const content = operation.requestBody?.content ?? {};
      const mediaType = Object.keys(content)[0];
      const statuses = Object.keys(operation.responses).map(Number);
      const successStatus = statuses.find((status) => status < 300) ?? 200;
      operations.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        query: parameters
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        body: mediaType ? { mediaType, schema: content[mediaType].schema ?? {} } : undefined,
        statuses,
        successStatus,
        successType: Object.keys(operation.responses[successStatus]?.content ?? {})[0] ?? 'application/json',
        secured: Array.isArray(operation.security) && operation.security.length > 0,
        otherMethods: METHODS.filter((m) => !defined.includes(m)).map((m) => m.toUpperCase()),
      });
    }
  }
  return operations;
}

/** A path segment: an id (own or foreign, resolved when sent) or raw text (already percent-encoded). */
export type Segment = Ref | { raw: string };
/** A query value: raw text (percent-encoded) or an id. */
export type QueryValue = Ref | { raw: string };

/** The bytes of a file part, described rather than held (short counterexamples). */
export type FileContent =
  | { kind: 'png' | 'gif' | 'jpeg' | 'webp' | 'svg'; width: number; height: number }
  | { kind: 'lyingPng'; width: number; height: number }
  | { kind: 'svgComments'; count: number }
  | { kind: 'svgEntities' }
  | { kind: 'svgLarge'; size: number }
  | { kind: 'bytes'; bytes: number[] }
  | { kind: 'text'; text: string }
  | { kind: 'oversize'; bytes: number }
  | { kind: 'docx' }
  | { kind: 'docxSpaces'; spaces: number }
  | { kind: 'pdf'; text: string }
  | { kind: 'pdfHeader' }
  | { kind: 'zip' };

export interface Part {
  name: string;
  /** Written byte for byte into Content-Disposition (latin1), so it can hold anything. */
  filename?: string;
  /** `utf8`: the filename is UTF-8 encoded (as browsers send it); `latin1`: as raw bytes. */
  filenameEncoding: 'utf8' | 'latin1';
  contentType?: string;
  content: FileContent;
}

export type Body =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown; contentType: string; label: string }
  | { kind: 'text'; text: string; contentType?: string; label: string }
  | {
      kind: 'multipart';
      parts: Part[];
      /** How the envelope is broken, if at all. */
      envelope: 'ok' | 'noBoundary' | 'wrongBoundary' | 'truncated' | 'lf' | 'mixed';
    };

export interface RequestSpec {
  actor: 'own' | 'anonymous';
  method: string;
  params: Record<string, Segment>;
  query: [string, QueryValue][];
  body: Body;
  chunked: boolean;
}

const kindsByParam: Record<string, RefKind[]> = {
  deckId: ['deckId'],
  slideId: ['slideId', 'pricingSlideId'],
  faqId: ['faqId'],
  actionConfigId: ['actionConfigId'],
  subscriptionId: ['subscriptionId'],
  apiKeyId: ['apiKeyId'],
  imageId: ['imageId'],
  documentId: ['documentId', 'pendingDocumentId'],
  exportId: ['exportId'],
};

function segmentArb(param: string): fc.Arbitrary<Segment> {
  const kinds = kindsByParam[param] ?? ['deckId'];
  return fc.oneof(
    { weight: 60, arbitrary: fc.constantFrom(...kinds).map((kind): Segment => new Ref('own', kind)) },
    { weight: 12, arbitrary: fc.constantFrom(...kinds).map((kind): Segment => new Ref('foreign', kind)) },
    {
      weight: 3,
      arbitrary: fc
        .constantFrom<RefKind>('deckId', 'slideId', 'faqId', 'imageId', 'organizationId', 'userId')
        .map((kind): Segment => new Ref('own', kind)),
    },
    { weight: 8, arbitrary: fc.uuid().map((raw): Segment => ({ raw })) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(
          '00000000-0000-0000-0000-000000000000',
          'ffffffff-ffff-ffff-ffff-ffffffffffff',
          'FFFFFFFF-FFFF-4FFF-8FFF-FFFFFFFFFFFF',
        )
        .map((raw): Segment => ({ raw })),
    },
    { weight: 10, arbitrary: fc.constantFrom(...malformedSegments).map((raw): Segment => ({ raw })) },
    {
      weight: 5,
      arbitrary: unicodeText.map((text): Segment => ({ raw: percentEncode(text.slice(0, 400)) })),
    },
  );
}

function queryValueArb(name: string, schema: Schema, context: SchemaContext): fc.Arbitrary<QueryValue> {
  const valid: fc.Arbitrary<QueryValue> =
    name === 'aggregateId'
      ? fc.oneof(
          fc
            .constantFrom<RefKind>('deckId', 'slideId', 'faqId')
            .map((kind): QueryValue => new Ref('own', kind)),
          fc
            .constantFrom<RefKind>('deckId', 'slideId', 'faqId')
            .map((kind): QueryValue => new Ref('foreign', kind)),
          fc
            .string({ minLength: 1, maxLength: 20 })
            .map((text): QueryValue => ({ raw: percentEncode(text) })),
        )
      : validValue(schema, context, undefined).map(
          (value): QueryValue => ({ raw: percentEncode(String(value)) }),
        );
  return fc.oneof(
    { weight: 5, arbitrary: valid },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(...lookalikeStrings)
        .map((text): QueryValue => ({ raw: percentEncode(text) })),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(
          '%00',
          'x%00y',
          '%ED%A0%80',
          '%E0%A4%A',
          '%FF',
          '0000-01-01T00:00:00Z',
          '0000-12-31T23:59:59.999Z',
          '10000-01-01T00:00:00Z',
          '-000001-01-01T00:00:00Z',
          '1e308',
          '-1',
          '9007199254740993',
          '1.5',
          '%2B1',
          '0x1',
          '',
        )
        .map((raw): QueryValue => ({ raw })),
    },
    {
      weight: 2,
      arbitrary: unicodeText.map((text): QueryValue => ({ raw: percentEncode(text.slice(0, 2000)) })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(300, 5_000, 20_000).map((n): QueryValue => ({ raw: 'q'.repeat(n) })),
    },
  );
}

function queryArb(operation: Operation, context: SchemaContext): fc.Arbitrary<[string, QueryValue][]> {
  const junk: fc.Arbitrary<[string, QueryValue][]> = fc.array(
    fc.tuple(
      fc.constantFrom<string>(
        'limit',
        'offset',
        'x',
        '__proto__',
        'constructor',
        'a[b]',
        'a[]',
        '%00',
        '%ED%A0%80',
      ),
      fc.constantFrom<QueryValue>({ raw: '1' }, { raw: '' }, { raw: '%00' }, { raw: '[object Object]' }),
    ),
    { maxLength: 2 },
  );
  if (operation.query.length === 0) {
    return fc.oneof(
      { weight: 9, arbitrary: fc.constant<[string, QueryValue][]>([]) },
      { weight: 1, arbitrary: junk },
    );
  }
  const perParam = operation.query.map(({ name, schema }) =>
    fc.oneof(
      { weight: 2, arbitrary: fc.constant<[string, QueryValue][]>([]) },
      {
        weight: 2,
        arbitrary: queryValueArb(name, schema, context).map((value): [string, QueryValue][] => [
          [name, value],
        ]),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(queryValueArb(name, schema, context), queryValueArb(name, schema, context))
          .map(([a, b]): [string, QueryValue][] => [
            [name, a],
            [name, b],
          ]),
      },
    ),
  );
  return fc
    .tuple(
      fc.tuple(...perParam),
      fc.oneof(
        { weight: 5, arbitrary: fc.constant<[string, QueryValue][]>([]) },
        { weight: 1, arbitrary: junk },
      ),
    )
    .map(([params, extra]) => [...params.flat(), ...extra]);
}

function jsonBodyArb(schema: Schema, context: SchemaContext): fc.Arbitrary<Body> {
  const valid = validValue(schema, context);
  const json = (value: unknown, label: string, contentType = 'application/json'): Body => ({
    kind: 'json',
    value,
    contentType,
    label,
  });
  const mutated = fc
    .tuple(valid, fc.nat(), mutationArb, fc.option(fc.tuple(fc.nat(), mutationArb), { freq: 4 }))
    .map(([value, place, mutation, second]) => {
      const first = applyMutation(value, schema, place, mutation, context);
      if (!second) return json(first.value, first.label);
      const next = applyMutation(first.value, schema, second[0], second[1], context);
      return json(next.value, `${first.label}; ${next.label}`);
    });
  return fc.oneof(
    { weight: 25, arbitrary: valid.map((value) => json(value, 'valid')) },
    { weight: 45, arbitrary: mutated },
    {
      weight: 8,
      arbitrary: nonObjectBodies.map(
        (b): Body => ({ kind: 'text', text: b.text, contentType: 'application/json', label: b.label }),
      ),
    },
    {
      weight: 6,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(...wrongContentTypes))
        .map(([value, type]) => json(value, `valid, sent as ${type}`, type)),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom('name=x&email=a', 'a,b\n1,2', '<x/>')
        .map((text): Body => ({ kind: 'text', text, contentType: undefined, label: 'no Content-Type' })),
    },
    { weight: 4, arbitrary: fc.constant<Body>({ kind: 'none' }) },
    {
      weight: 2,
      arbitrary: fc.constant<Body>({
        kind: 'text',
        text: '',
        contentType: 'application/json',
        label: 'empty body',
      }),
    },
    {
      weight: 1,
      arbitrary: longText.map(
        (text): Body => ({
          kind: 'text',
          text: JSON.stringify({ pad: text }),
          contentType: 'application/json',
          label: `object with a ${text.length}-character string`,
        }),
      ),
    },
  );
}

function noBodyArb(): fc.Arbitrary<Body> {
  return fc.oneof(
    { weight: 16, arbitrary: fc.constant<Body>({ kind: 'none' }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<unknown>({}, { deckId: 'x' }, [], null, { extra: 1 }).map(
        (value): Body => ({
          kind: 'json',
          value,
          contentType: 'application/json',
          label: 'unexpected JSON body',
        }),
      ),
    },
    {
      weight: 1,
      arbitrary: nonObjectBodies.map(
        (b): Body => ({ kind: 'text', text: b.text, contentType: 'application/json', label: b.label }),
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...wrongContentTypes)
        .map((type): Body => ({ kind: 'text', text: 'x=1', contentType: type, label: `body as ${type}` })),
    },
  );
}

const fileContentArb: fc.Arbitrary<FileContent> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constantFrom('png', 'gif', 'jpeg', 'webp', 'svg'),
      width: fc.constantFrom(1, 3, 64, 4000),
      height: fc.constantFrom(1, 2, 48),
    }) as fc.Arbitrary<FileContent>,
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('lyingPng' as const),
      width: fc.constantFrom(0, 1, 65_535, 2 ** 31 - 1, 2 ** 32 - 1),
      height: fc.constantFrom(0, 1, 2 ** 31 - 1, 2 ** 32 - 1),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.integer({ min: 0, max: 24 }).map((count): FileContent => ({ kind: 'svgComments', count })),
  },
  { weight: 1, arbitrary: fc.constant<FileContent>({ kind: 'svgEntities' }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(10_000, 60_000).map((size): FileContent => ({ kind: 'svgLarge', size })),
  },
  {
    weight: 3,
    arbitrary: fc
      .array(fc.integer({ min: 0, max: 255 }), { maxLength: 64 })
      .map((bytes): FileContent => ({ kind: 'bytes', bytes })),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(unicodeText, fc.constantFrom('', 'hello', '%PDF'))
      .map((text): FileContent => ({ kind: 'text', text })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(70_000, 11 * 1024 * 1024)
      .map((bytes): FileContent => ({ kind: 'oversize', bytes })),
  },
  { weight: 2, arbitrary: fc.constant<FileContent>({ kind: 'docx' }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(10, 300, 3_000).map((spaces): FileContent => ({ kind: 'docxSpaces', spaces })),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        'Agreement between {company_name} and [CLIENT NAME].',
        '',
        '\u0000',
        'x\ud800y',
        'Name: ________',
      )
      .map((text): FileContent => ({ kind: 'pdf', text })),
  },
  { weight: 1, arbitrary: fc.constant<FileContent>({ kind: 'pdfHeader' }) },
  { weight: 1, arbitrary: fc.constant<FileContent>({ kind: 'zip' }) },
);

const filenameArb: fc.Arbitrary<{ filename: string; encoding: 'utf8' | 'latin1' }> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .constantFrom('logo.png', 'photo.jpg', 'r.svg', 'contract.docx', 'contract.pdf', 'a', '.png', 'x.PNG')
      .map((filename) => ({ filename, encoding: 'utf8' as const })),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('résumé.png', '履歴書.pdf', '😀.png', 'e\u0301.svg', '\u202egnp.exe', 'ﬀ.png')
      .map((filename) => ({ filename, encoding: 'utf8' as const })),
  },
  {
    weight: 2,
    arbitrary: unicodeText.map((text) => ({
      filename: `${text.slice(0, 300)}.png`,
      encoding: 'utf8' as const,
    })),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        '',
        '../../../etc/passwd',
        '..\\..\\boot.ini',
        'a'.repeat(300),
        `${'é'.repeat(200)}.png`,
        'x\u0000y.png',
        'quote".png',
        'new\r\nline.png',
        '\xff\xfe.png',
        '\xed\xa0\x80.png',
        '%00.png',
        'a/b.png',
      )
      .map((filename) => ({ filename, encoding: 'latin1' as const })),
  },
);

const partArb: fc.Arbitrary<Part> = fc
  .tuple(
    fc.oneof(
      { weight: 12, arbitrary: fc.constant('file') },
      { weight: 1, arbitrary: fc.constantFrom('File', 'image', 'file[]', '') },
    ),
    fc.option(filenameArb, { freq: 12 }),
    fc.option(
      fc.constantFrom(
        'application/octet-stream',
        'image/png',
        'image/svg+xml',
        'application/pdf',
        'text/plain',
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        'x/x',
      ),
      { freq: 6 },
    ),
    fileContentArb,
  )
  .map(([name, filename, contentType, content]) => ({
    name,
    filename: filename?.filename ?? undefined,
    filenameEncoding: filename?.encoding ?? 'utf8',
    contentType: contentType ?? undefined,
    content,
  }));

function multipartArb(): fc.Arbitrary<Body> {
  const textField: fc.Arbitrary<Part> = fc.constantFrom('caption', 'file', 'x').map((name) => ({
    name,
    filenameEncoding: 'utf8' as const,
    content: { kind: 'text' as const, text: 'field' },
  }));
  return fc.oneof(
    {
      weight: 40,
      arbitrary: fc
        .tuple(
          fc.oneof(
            { weight: 10, arbitrary: partArb.map((part) => [part]) },
            { weight: 1, arbitrary: fc.array(partArb, { minLength: 2, maxLength: 3 }) },
            { weight: 1, arbitrary: fc.tuple(textField, partArb).map(([a, b]) => [a, b]) },
            { weight: 1, arbitrary: fc.array(textField, { maxLength: 2 }) },
          ),
          fc.oneof(
            { weight: 12, arbitrary: fc.constant('ok' as const) },
            {
              weight: 1,
              arbitrary: fc.constantFrom('noBoundary', 'wrongBoundary', 'truncated', 'lf', 'mixed'),
            },
          ),
        )
        .map(([parts, envelope]): Body => ({ kind: 'multipart', parts, envelope: envelope as any })),
    },
    { weight: 2, arbitrary: fc.constant<Body>({ kind: 'none' }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(...wrongContentTypes).map(
        (type): Body => ({
          kind: 'text',
          text: '{"file":"x"}',
          contentType: type,
          label: `body as ${type}`,
        }),
      ),
    },
  );
}

/** Every kind of request for one operation: valid, wrong, foreign, anonymous, wrong method. */
export function requestArb(operation: Operation, context: SchemaContext): fc.Arbitrary<RequestSpec> {
  const params = fc.record(
    Object.fromEntries(operation.pathParams.map((name) => [name, segmentArb(name)])) as Record<
      string,
      fc.Arbitrary<Segment>
    >,
  );
  const body = !operation.body
    ? noBodyArb()
    : operation.body.mediaType === 'multipart/form-data'
      ? multipartArb()
      : jsonBodyArb(operation.body.schema, context);
  const method =
    operation.otherMethods.length > 0
      ? fc.oneof(
          { weight: 30, arbitrary: fc.constant(operation.method) },
          { weight: 1, arbitrary: fc.constantFrom(...operation.otherMethods, 'OPTIONS') },
        )
      : fc.constant(operation.method);
  return fc.record({
    actor: fc.oneof(
      { weight: 14, arbitrary: fc.constant('own' as const) },
      { weight: 1, arbitrary: fc.constant('anonymous' as const) },
    ),
    method,
    params,
    query: queryArb(operation, context),
    body,
    chunked: fc.oneof(
      { weight: 12, arbitrary: fc.constant(false) },
      { weight: 1, arbitrary: fc.constant(true) },
    ),
  });
}

/**
 * Requests every budget runs, however small: the valid request, and (for a path with ids) the
 * same request aimed at the other organization's resource. Random runs add the rest.
 */
export function examplesFor(operation: Operation, context: SchemaContext, seed: number): RequestSpec[] {
  const body: Body = !operation.body
    ? { kind: 'none' }
    : operation.body.mediaType === 'multipart/form-data'
      ? {
          kind: 'multipart',
          envelope: 'ok',
          parts: [
            {
              name: 'file',
              filename: operation.path.includes('contract') ? 'contract.docx' : 'logo.png',
              filenameEncoding: 'utf8',
              contentType: 'application/octet-stream',
              content: operation.path.includes('contract')
                ? { kind: 'docx' }
                : { kind: 'png', width: 4, height: 3 },
            },
          ],
        }
      : {
          kind: 'json',
          value: fc.sample(validValue(operation.body.schema, context), { seed, numRuns: 1 })[0],
          contentType: 'application/json',
          label: 'valid',
        };
  const spec = (owner: 'own' | 'foreign'): RequestSpec => ({
    actor: 'own',
    method: operation.method,
    params: Object.fromEntries(
      operation.pathParams.map((name) => [name, new Ref(owner, (kindsByParam[name] ?? ['deckId'])[0]!)]),
    ),
    query: [],
    body,
    chunked: false,
  });
  return operation.pathParams.length > 0 ? [spec('own'), spec('foreign')] : [spec('own')];
}

/**
 * The integers at and past what storage holds, in every integer field of every operation (a
 * body's own fields and the query's): PostgreSQL's `integer` ends at 2^31−1, JSON's exact
 * integers at 2^53−1, and −1 is below most. Each must be accepted or refused with a 400, never
 * a 500 (issue 38: `orderIndex: 2147483648` was one). Run in every budget, beside `examplesFor`.
 */
export const BOUNDARY_INTEGERS = [2 ** 31 - 1, 2 ** 31, 2 ** 53 - 1, -1] as const;

export function boundaryIntegerExamples(
  operation: Operation,
  context: SchemaContext,
  seed: number,
): RequestSpec[] {
  const valid = examplesFor(operation, context, seed)[0]!;
  const isInteger = (schema: Schema) => branches(schema, context).some((branch) => branch.type === 'integer');
  const examples: RequestSpec[] = [];
  for (const { name, schema } of operation.query) {
    if (!isInteger(schema)) continue;
    for (const n of BOUNDARY_INTEGERS) examples.push({ ...valid, query: [[name, { raw: String(n) }]] });
  }
  const body = valid.body;
  if (operation.body && body.kind === 'json') {
    const objects = branches(operation.body.schema, context).filter((branch) => branch.properties);
    for (const object of objects) {
      for (const [name, schema] of Object.entries<Schema>(object.properties)) {
        if (!isInteger(schema)) continue;
        // The required fields of the valid body and the integer: no other field's rule refuses it first.
        const required = Object.entries(body.value as Record<string, unknown>).filter(([key]) =>
          (object.required ?? []).includes(key),
        );
        for (const n of BOUNDARY_INTEGERS) {
          const value = { ...Object.fromEntries(required), [name]: n };
          examples.push({ ...valid, body: { ...body, value, label: `${name} = ${n}` } });
        }
      }
    }
  }
  return examples;
}
