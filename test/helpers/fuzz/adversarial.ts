import fc from 'fast-check';
import { RawJson } from './values.ts';

/** What PostgreSQL cannot store in text or jsonb: every free-text field must refuse it with a 400. */
export const unstorableText = [
  '\u0000',
  'x\u0000y',
  '\ud800',
  'x\ud800y',
  '\udfff',
  '\udc00\ud800',
  'a\ud83d',
];

/** Unicode that breaks naive code: NUL, lone surrogates, bidi controls, joiners, combining marks, case changes. */
export const unicodeEdges = [
  ...unstorableText,
  '\u202eevil\u202c',
  '\u200f\u061c',
  '\ufeff',
  '\u200b\u200d',
  '\u0085\u2028\u2029',
  '\r\n\t\v\f',
  '\u00a0',
  '\uffff\ufffe',
  '\u{10ffff}',
  '😀',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈',
  'e\u0301\u0302\u0303\u0304\u0305\u0306\u0307\u0308',
  'Z̵̡̢̛̗̘̙̜̝̞̟̠̀́̂̃̄̅̆̇̈̉̊̋̌',
  'İ',
  'ß',
  'ﬀ',
  'ǅ',
  '\u0130'.repeat(300),
  'مرحبا',
  '\u0000'.repeat(3),
  '%00',
  '%E0%A4%A',
  '../..',
  '\\u0000',
  '{{7*7}}',
  "'; select pg_sleep(1); --",
  '<script>alert(1)</script>',
];

/** A unicode edge, possibly repeated and surrounded by ordinary text. */
export const unicodeText: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom(...unstorableText) },
      { weight: 3, arbitrary: fc.constantFrom(...unicodeEdges) },
    ),
    fc.constantFrom('', 'a', 'Ab ', ' '),
    fc.constantFrom(1, 1, 1, 2, 50, 3000),
  )
  .map(([edge, around, times]) => `${around}${edge.repeat(times)}${around}`);

/** Strings of awkward lengths (the body limit is 1 MB by default: the longest passes it). */
export const longText: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(1_001, 5_001, 20_001, 100_000, 1_100_000), fc.constantFrom('a', 'é', '😀', ' ', 'İ'))
  .map(([length, unit]) => unit.repeat(Math.ceil(length / unit.length)));

/** Numbers at and past every boundary that matters for JSON, JavaScript and PostgreSQL. */
export const boundaryNumbers = [
  0,
  -0,
  -1,
  1,
  0.5,
  0.001,
  -0.01,
  1e308,
  -1e308,
  Number.MIN_VALUE,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53,
  2 ** 53 + 2,
  2 ** 63,
  1e21,
  99_999_999_999.999,
];

/** Number literals that only exist as JSON text. */
export const rawNumbers = [
  new RawJson('1e999', 'Infinity literal'),
  new RawJson('-1e999', '-Infinity literal'),
  new RawJson('123456789012345678901234567890', 'huge integer literal'),
  new RawJson('1.0000000000000000000000001', 'long fraction'),
  new RawJson('-0.0', 'negative zero literal'),
  new RawJson('1E2', 'exponent integer'),
];

/** Strings that look like numbers, booleans, null and dates to a coercing parser. */
export const lookalikeStrings = [
  '',
  ' ',
  '0',
  '-1',
  '1e308',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '12',
  '1.5',
  'true',
  'false',
  'null',
  'undefined',
  '[]',
  '{}',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '2026-02-30T00:00:00Z',
];

export function deepArray(depth: number): RawJson {
  return new RawJson(`${'['.repeat(depth)}1${']'.repeat(depth)}`, `array nested ${depth} deep`);
}

export function deepObject(depth: number): RawJson {
  return new RawJson(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`, `object nested ${depth} deep`);
}

export const deepValue: fc.Arbitrary<RawJson> = fc
  .tuple(fc.constantFrom(deepArray, deepObject), fc.constantFrom(32, 200, 1_000, 5_000, 100_000))
  .map(([make, depth]) => make(depth));

/** Any wrong value, whatever the schema wanted. */
export const adversarialValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [null], { '': null }) },
  { weight: 3, arbitrary: fc.constantFrom(...boundaryNumbers) },
  { weight: 1, arbitrary: fc.constantFrom(...rawNumbers) },
  { weight: 3, arbitrary: fc.constantFrom(...lookalikeStrings) },
  { weight: 3, arbitrary: unicodeText },
  { weight: 1, arbitrary: longText },
  { weight: 1, arbitrary: deepValue },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

/** Field names an object should not accept (or should treat as plain names). */
export const extraFieldNames = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'id',
    'organizationId',
    'deckId',
    'createdAt',
    '',
    ' ',
    'toString',
  ),
  fc.constantFrom(...unicodeEdges),
  fc.string({ minLength: 1, maxLength: 12 }),
);

/**
 * Bodies past (or at) the cost bound of every input (`routers/shared.schema.ts`): too many
 * members, too long a member name, too many values, and long lists of bad items.
 */
const costlyBodies: fc.Arbitrary<{ text: string; label: string }> = fc
  .constantFrom(
    { count: 90_000, label: '90,000 unknown members' },
    { count: 501, label: '501 members' },
    { count: 500, label: '500 members' },
  )
  .map(({ count, label }) => ({
    text: `{${Array.from({ length: count }, (_, i) => `"k${i}":0`).join(',')}}`,
    label,
  }))
  .chain((wide) =>
    fc.constantFrom(
      wide,
      { text: `{"${'n'.repeat(101)}":1}`, label: 'a 101-character name' },
      { text: `{"a":[${'0,'.repeat(20_000)}0]}`, label: '20,001 values' },
      {
        text: `{"a":[${Array.from({ length: 10_000 }, () => '"bad"').join(',')}]}`,
        label: '10,000 bad items',
      },
    ),
  );

/** Whole bodies that are not an object, or not JSON at all (sent with Content-Type: application/json). */
export const nonObjectBodies: fc.Arbitrary<{ text: string; label: string }> = fc.oneof(
  fc.constantFrom('null', '42', '-1', '"text"', '[]', '[{}]', 'true', 'false', '""', '1e999').map((text) => ({
    text,
    label: `JSON ${text}`,
  })),
  fc
    .constantFrom(
      '{',
      '{"a":',
      '{"a":1,}',
      "{'a':1}",
      '{"a":1}x',
      '{"a":1}{"b":2}',
      '\ufeff{}',
      ' ',
      'nul',
      '{"a":"\\ud800"}',
      '{"a":"\\u0000"}',
      '{"a":"\\x00"}',
      '{"a" 1}',
      '{a:1}',
      '[1,2',
      '/* c */ {}',
      '{"a":NaN}',
      '{"a":Infinity}',
      '{"a":undefined}',
      '{"a":01}',
      '{"a":.5}',
      '{"a":"\t"}',
    )
    .map((text) => ({ text, label: `malformed ${JSON.stringify(text)}` })),
  fc
    .constantFrom(200, 5_000, 100_000)
    .map((depth) => ({ text: deepArray(depth).text, label: `[[…]] ${depth} deep` })),
  fc
    .constantFrom(200, 5_000, 100_000)
    .map((depth) => ({ text: deepObject(depth).text, label: `{a:{…}} ${depth} deep` })),
  costlyBodies,
);

/** Content types a JSON route must refuse or treat correctly. */
export const wrongContentTypes = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'multipart/form-data',
  'application/xml',
  'application/octet-stream',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/merge-patch+json',
  'application/jsonx',
  'application/json, text/plain',
  'json',
  '*/*',
  ';',
];

/** Malformed path segments (already percent-encoded as they go on the wire). */
export const malformedSegments = [
  'not-a-uuid',
  '0',
  '-1',
  '1e308',
  'NaN',
  'null',
  'undefined',
  'true',
  '%00',
  '%E0%A4%A',
  '%ED%A0%80',
  '%FF',
  '%',
  '%2F',
  '%2e%2e',
  '..',
  '%20',
  '00000000-0000-0000-0000-00000000000',
  '00000000-0000-0000-0000-0000000000000',
  '000000000000000000000000000000000000',
  '{00000000-0000-0000-0000-000000000000}',
  '00000000-0000-0000-0000-000000000000%00',
  'ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ',
  "'%20or%201=1--",
  'a'.repeat(5000),
  '%F0%9F%98%80',
  '%E2%80%AE',
  '__proto__',
  'constructor',
];
