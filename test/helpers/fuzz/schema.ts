import fc from 'fast-check';
import {
  adversarialValue,
  boundaryNumbers,
  deepValue,
  extraFieldNames,
  lookalikeStrings,
  unicodeText,
} from './adversarial.ts';
import { defineField, RawJson, Ref, type RefKind } from './values.ts';

/**
 * A pattern of the OpenAPI document. They are the service's own zod `.regex` literals, each
 * checked for ReDoS where it is written (test/redos.test.ts), so they are built here unchecked.
 */
function documentPattern(source: string): RegExp {
  // redos-exempt: the document's patterns are the checked literals of the schemas
  return new RegExp(source);
}

/** The slice of JSON Schema (OpenAPI 3.1) the document uses. */
export type Schema = Record<string, any>;

export interface SchemaContext {
  /** The whole OpenAPI document, for `$ref`. */
  document: Record<string, any>;
}

export function deref(schema: Schema | undefined, context: SchemaContext): Schema {
  let current = schema ?? {};
  for (let hops = 0; typeof current.$ref === 'string' && hops < 20; hops += 1) {
    const path = (current.$ref as string).replace(/^#\//, '').split('/');
    const { $ref: _ref, ...rest } = current;
    current = { ...path.reduce<any>((node, key) => node?.[key], context.document), ...rest };
  }
  return current;
}

/** The alternatives a schema allows (anyOf / oneOf / a list of types), each a schema of one type. */
export function branches(schema: Schema, context: SchemaContext): Schema[] {
  const resolved = deref(schema, context);
  const alternatives = resolved.anyOf ?? resolved.oneOf;
  if (Array.isArray(alternatives)) return alternatives.flatMap((branch: Schema) => branches(branch, context));
  if (Array.isArray(resolved.type)) return resolved.type.map((type: string) => ({ ...resolved, type }));
  return [resolved];
}

const OBJECT_KEY = /^\^org/;

// fc.webUrl() takes most of a second to build; a few shapes of address are enough here.
const webAddress = fc
  .tuple(
    fc.constantFrom('https://', 'http://', 'HTTPS://', 'ftp://', 'javascript:', '//'),
    fc.constantFrom('acme.test', 'localhost', '127.0.0.1', '[::1]', 'xn--bcher-kva.example', 'a'.repeat(300)),
    fc.string({ maxLength: 12 }),
  )
  .map(([scheme, host, rest]) => `${scheme}${host}/${encodeURI(rest)}`);
const uuidPath: Record<string, RefKind[]> = {
  deckId: ['deckId'],
  relatedSlideId: ['slideId', 'pricingSlideId'],
};

const EVENT_TYPES = [
  '*',
  'slide.*',
  'deck.*',
  'deck.created',
  'slide.updated',
  'faq.created',
  'image.uploaded',
];

/**
 * Values the service would accept for fields whose meaning a schema cannot say (voice ids,
 * currencies, event types, media types): without them nearly every "valid" request would be
 * refused for the same reason, and the mutations of a valid request would test nothing else.
 */
function hintFor(name: string | undefined, schema: Schema): fc.Arbitrary<unknown> | undefined {
  const mostly = (good: fc.Arbitrary<unknown>, other: fc.Arbitrary<unknown>) =>
    fc.oneof({ weight: 6, arbitrary: good }, { weight: 1, arbitrary: other });
  switch (name) {
    case 'voiceId':
      return mostly(fc.constant(new Ref('own', 'voiceId')), fc.string({ minLength: 1, maxLength: 20 }));
    case 'email':
      if (schema.maxLength === 320 && schema.format === 'email') {
        return mostly(
          fc.constant(new Ref('own', 'email')),
          fc.stringMatching(documentPattern(schema.pattern)),
        );
      }
      return undefined;
    case 'password':
      return mostly(fc.constant(new Ref('own', 'password')), fc.string({ minLength: 1, maxLength: 30 }));
    case 'slideIds':
      return fc.nat().map((salt) => new Ref('own', 'deckSlideIds', salt));
    case 'currency':
      return mostly(fc.constantFrom('USD', 'EUR', 'GBP', 'JPY', 'CHF'), fc.stringMatching(/^[A-Z]{3}$/));
    case 'orderIndex':
      return mostly(fc.integer({ min: 0, max: 2 }), fc.constantFrom(0, 2 ** 31, Number.MAX_SAFE_INTEGER));
    case 'eventType':
      if (!schema.maxLength)
        return mostly(fc.constantFrom(...EVENT_TYPES), fc.constantFrom('nope.*', 'slide.', '**'));
      return undefined;
    case 'channel':
      return mostly(fc.constantFrom('console', 'webhook'), fc.constant('email'));
    case 'contentType':
      return mostly(
        fc.constantFrom('text/plain', 'application/pdf', 'text/markdown', 'text/csv'),
        fc.stringMatching(documentPattern(schema.pattern ?? '^a/b$')),
      );
    case 'sizeBytes':
      return mostly(
        fc.integer({ min: 1, max: 5000 }),
        fc.constantFrom(1, 52_428_800, 52_428_801, 2 ** 53 - 1),
      );
    case 'buttonUrl':
      return mostly(
        fc.constantFrom('https://acme.test/book', 'mailto:a@acme.test', 'tel:+15550100'),
        webAddress,
      );
    case 'phone':
      return mostly(
        fc.constantFrom('+1 555 0100', '(030) 1234-567'),
        fc.stringMatching(documentPattern(schema.pattern)),
      );
    default:
      return undefined;
  }
}

/** Fields that depend on each other: a subscription's channelConfig fits its channel, product data needs a pricing slide. */
function alignFields(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if ('productData' in value && !('slideIds' in value)) return { ...value, slideType: 'product_pricing_v1' };
  if (!('channel' in value) || !('channelConfig' in value)) return value;
  const object = value as Record<string, unknown>;
  const config = {
    console: {},
    webhook: { url: 'https://hooks.acme.test/deck' },
    email: { recipients: ['a@acme.test'] },
  }[String(object.channel)];
  return config ? { ...object, channelConfig: config } : value;
}

/** Strings within the bounds: mostly short, sometimes exactly at a bound. */
function stringWithin(schema: Schema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 2_000;
  const short = fc.string({ unit: 'grapheme', minLength: Math.max(min, 1), maxLength: Math.min(max, 24) });
  return fc.oneof(
    { weight: 6, arbitrary: short.filter((s) => s.length >= min && s.length <= max && s.trim().length > 0) },
    { weight: 1, arbitrary: fc.constant('x'.repeat(Math.max(min, 1))) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('a', 'é', '😀').map((unit) => unit.repeat(Math.floor(max / unit.length))),
    },
  );
}

/** A value the schema describes (names help pick ids and values that exist). */
export function validValue(
  schema: Schema,
  context: SchemaContext,
  name?: string,
  depth = 0,
): fc.Arbitrary<unknown> {
  const resolved = deref(schema, context);
  const hint = hintFor(name, resolved);
  if (hint) return hint;
  const alternatives = branches(resolved, context);
  if (alternatives.length > 1) {
    return fc.oneof(...alternatives.map((branch) => validValue(branch, context, name, depth)));
  }
  const one = alternatives[0]!;
  if (Array.isArray(one.enum)) return fc.constantFrom(...one.enum);
  if ('const' in one) return fc.constant(one.const);
  switch (one.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = one.minimum ?? -(2 ** 31);
      const max = Math.min(one.maximum ?? 2 ** 31, Number.MAX_SAFE_INTEGER);
      return fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min, max: Math.min(max, min + 20) }) },
        { weight: 1, arbitrary: fc.constantFrom(min, max) },
      );
    }
    case 'number': {
      const min = one.minimum ?? -1e9;
      const max = one.maximum ?? 1e9;
      if (one.multipleOf === 0.01) {
        return fc.oneof(
          fc
            .integer({ min: Math.ceil(min * 100), max: Math.min(Math.floor(max * 100), 10_000_000) })
            .map((n) => n / 100),
          fc.constantFrom(min, max),
        );
      }
      return fc.double({ min, max, noNaN: true });
    }
    case 'string': {
      if (one.format === 'uuid') {
        const kinds = name ? uuidPath[name] : undefined;
        return kinds ? fc.constantFrom(...kinds).map((kind) => new Ref('own', kind)) : fc.uuid();
      }
      if (one.pattern && OBJECT_KEY.test(one.pattern)) return fc.constant(new Ref('own', 'objectKey'));
      if (one.format === 'date-time') {
        return fc
          .date({
            min: new Date('1970-01-01T00:00:00Z'),
            max: new Date('2100-01-01T00:00:00Z'),
            noInvalidDate: true,
          })
          .map((date) => date.toISOString());
      }
      if (one.format === 'uri') return webAddress;
      if (one.pattern) {
        const pattern = documentPattern(one.pattern);
        return fc
          .stringMatching(pattern)
          .filter((s) => s.length >= (one.minLength ?? 0) && s.length <= (one.maxLength ?? Infinity));
      }
      return stringWithin(one);
    }
    case 'array': {
      const item = validValue(one.items ?? {}, context, undefined, depth + 1);
      const minLength = one.minItems ?? 0;
      const maxLength = Math.min(one.maxItems ?? 5, 5);
      const arrays = [fc.array(item, { minLength, maxLength })];
      if (one.maxItems && one.maxItems <= 100) {
        arrays.push(fc.array(item, { minLength: one.maxItems, maxLength: one.maxItems }));
      }
      return arrays.length > 1
        ? fc.oneof({ weight: 5, arbitrary: arrays[0]! }, { weight: 1, arbitrary: arrays[1]! })
        : arrays[0]!;
    }
    case 'object': {
      const properties: Record<string, Schema> = one.properties ?? {};
      if (Object.keys(properties).length > 0) {
        const model: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [key, property] of Object.entries(properties)) {
          model[key] = validValue(property, context, key, depth + 1);
        }
        return fc.record(model, { requiredKeys: one.required ?? [] }).map(alignFields);
      }
      if (one.additionalProperties && typeof one.additionalProperties === 'object') {
        const keys = one.propertyNames?.pattern
          ? fc.stringMatching(documentPattern(one.propertyNames.pattern))
          : fc.string({ minLength: 1, maxLength: 10 });
        const values =
          Object.keys(one.additionalProperties).length === 0
            ? fc.jsonValue({ maxDepth: 2 })
            : validValue(one.additionalProperties, context, undefined, depth + 1);
        return fc.dictionary(keys, values, { maxKeys: 4 });
      }
      return fc.constant({});
    }
    default:
      return depth > 4 ? fc.constant(null) : fc.jsonValue({ maxDepth: 2 });
  }
}

/** What to do to one place of a valid value. Applied with the schema of that place in hand. */
export type Mutation =
  | { kind: 'replace'; value: unknown }
  | { kind: 'boundary'; which: 'belowMin' | 'aboveMax' | 'atMax' | 'fraction' | 'huge' }
  | { kind: 'delete' }
  | { kind: 'extraField'; key: string; value: unknown }
  | { kind: 'wrapInArray' }
  | { kind: 'stringify' }
  | { kind: 'insertText'; text: string; at: number }
  | { kind: 'foreign' }
  /** The same text put into every string of the value: finds the one free-text field that forgets a rule. */
  | { kind: 'everyString'; text: string }
  | { kind: 'deep'; value: RawJson };

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 5, arbitrary: adversarialValue.map((value) => ({ kind: 'replace' as const, value })) },
  {
    weight: 4,
    arbitrary: fc
      .constantFrom('belowMin', 'aboveMax', 'atMax', 'fraction', 'huge')
      .map((which) => ({ kind: 'boundary' as const, which })),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'delete' as const }) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(extraFieldNames, adversarialValue)
      .map(([key, value]) => ({ kind: 'extraField' as const, key, value })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'wrapInArray' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'stringify' as const }) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(unicodeText, fc.nat())
      .map(([text, at]) => ({ kind: 'insertText' as const, text, at })),
  },
  { weight: 3, arbitrary: fc.constant({ kind: 'foreign' as const }) },
  { weight: 3, arbitrary: unicodeText.map((text) => ({ kind: 'everyString' as const, text })) },
  { weight: 1, arbitrary: deepValue.map((value) => ({ kind: 'deep' as const, value })) },
);

type Path = (string | number)[];

/** Every place in a value: the root, each field and item, depth first. */
export function placesOf(value: unknown, path: Path = []): Path[] {
  const places: Path[] = [path];
  if (value instanceof Ref || value instanceof RawJson) return places;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) places.push(...placesOf(item, [...path, index]));
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) places.push(...placesOf((value as any)[key], [...path, key]));
  }
  return places;
}

/** The schema describing the value at `path` (the branch of an anyOf that fits it). */
export function schemaAt(schema: Schema, path: Path, value: unknown, context: SchemaContext): Schema {
  let current = deref(schema, context);
  let node = value;
  for (const step of path) {
    const fitting = branches(current, context).find((branch) =>
      typeof step === 'number' ? branch.type === 'array' : branch.type === 'object' || branch.properties,
    );
    if (!fitting) return {};
    current =
      typeof step === 'number'
        ? deref(fitting.items ?? {}, context)
        : deref(
            fitting.properties?.[step] ??
              (typeof fitting.additionalProperties === 'object' ? fitting.additionalProperties : {}),
            context,
          );
    node = (node as any)?.[step];
  }
  const fitting = branches(current, context).find((branch) => jsonType(node) === branch.type);
  return fitting ?? current;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Ref) return 'string';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function clone<T>(value: T): T {
  if (value instanceof Ref || value instanceof RawJson) return value;
  if (Array.isArray(value)) return value.map(clone) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) defineField(out, key, clone((value as any)[key]));
    return out as T;
  }
  return value;
}

function appendToStrings(value: unknown, text: string): unknown {
  if (typeof value === 'string') return value + text;
  if (value instanceof Ref || value instanceof RawJson) return value;
  if (Array.isArray(value)) return value.map((item) => appendToStrings(item, text));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) defineField(out, key, appendToStrings((value as any)[key], text));
    return out;
  }
  return value;
}

/** The value past (or at) a bound of its schema; undefined when the schema has no such bound. */
function boundaryValue(schema: Schema, which: string, current: unknown): unknown {
  const type = schema.type;
  if (type === 'string') {
    const max = schema.maxLength;
    const min = schema.minLength ?? 0;
    const base = typeof current === 'string' && current.length > 0 ? current : 'x';
    if (which === 'atMax' && max) return base.repeat(Math.ceil(max / base.length)).slice(0, max);
    if (which === 'aboveMax') return 'y'.repeat((max ?? 100_000) + 1);
    if (which === 'belowMin') return min > 0 ? 'z'.repeat(min - 1) : '   ';
    if (which === 'huge') return 'w'.repeat(600_000);
    return '\t';
  }
  if (type === 'integer' || type === 'number') {
    const min = schema.minimum ?? -1e308;
    const max = schema.maximum ?? 1e308;
    if (which === 'belowMin') return Math.max(min - 1, -Number.MAX_VALUE);
    if (which === 'aboveMax') return max >= Number.MAX_SAFE_INTEGER ? 2 ** 53 + 2 : max + 1;
    if (which === 'atMax') return max;
    if (which === 'fraction') return type === 'integer' ? (Number(current) || 1) + 0.5 : 0.005;
    return 1e308;
  }
  if (type === 'array') {
    const item = Array.isArray(current) && current.length > 0 ? current[0] : 'x';
    const max = schema.maxItems ?? 1000;
    if (which === 'aboveMax' || which === 'huge') return Array.from({ length: max + 1 }, () => item);
    if (which === 'atMax') return Array.from({ length: max }, () => item);
    return [];
  }
  return boundaryNumbers[1];
}

const foreignKinds: Partial<Record<RefKind, RefKind>> = { email: 'email', password: 'password' };

/** Applies one mutation at one place; returns the new value and a label for the report. */
export function applyMutation(
  root: unknown,
  rootSchema: Schema,
  placeIndex: number,
  mutation: Mutation,
  context: SchemaContext,
): { value: unknown; label: string } {
  const value = clone(root);
  const places = placesOf(value);
  const path = places[placeIndex % places.length]!;
  const where = path.length ? `/${path.join('/')}` : '(root)';
  const schema = schemaAt(rootSchema, path, value, context);
  const parent = path.length ? path.slice(0, -1).reduce<any>((node, step) => node[step], value) : undefined;
  const last = path[path.length - 1];
  const current = path.length ? parent[last!] : value;
  const set = (next: unknown): unknown => {
    if (!path.length) return next;
    if (Array.isArray(parent)) parent[last as number] = next;
    else defineField(parent, last as string, next);
    return value;
  };
  switch (mutation.kind) {
    case 'replace':
      return { value: set(mutation.value), label: `${where} := wrong value` };
    case 'boundary':
      return {
        value: set(boundaryValue(schema, mutation.which, current)),
        label: `${where} ${mutation.which}`,
      };
    case 'delete':
      if (!path.length) return { value: {}, label: 'empty object' };
      if (Array.isArray(parent)) parent.splice(last as number, 1);
      else delete parent[last!];
      return { value, label: `${where} removed` };
    case 'extraField': {
      const target =
        current !== null &&
        typeof current === 'object' &&
        !Array.isArray(current) &&
        !(current instanceof Ref)
          ? current
          : value !== null && typeof value === 'object' && !Array.isArray(value)
            ? value
            : undefined;
      if (!target) return { value: set(mutation.value), label: `${where} := wrong value` };
      defineField(target as Record<string, unknown>, mutation.key, mutation.value);
      return { value, label: `extra field ${JSON.stringify(mutation.key)}` };
    }
    case 'wrapInArray':
      return { value: set([current]), label: `${where} wrapped in an array` };
    case 'stringify':
      if (typeof current === 'number' || typeof current === 'boolean' || current === null) {
        return { value: set(String(current)), label: `${where} as a string` };
      }
      if (typeof current === 'string') {
        return {
          value: set(lookalikeStrings[current.length % lookalikeStrings.length]),
          label: `${where} lookalike`,
        };
      }
      return { value: set(JSON.stringify(current ?? null)), label: `${where} as JSON text` };
    case 'insertText': {
      if (typeof current === 'string') {
        const at = mutation.at % (current.length + 1);
        return {
          value: set(current.slice(0, at) + mutation.text + current.slice(at)),
          label: `${where} + unicode`,
        };
      }
      return { value: set(mutation.text), label: `${where} := unicode text` };
    }
    case 'foreign': {
      if (current instanceof Ref && !foreignKinds[current.kind]) {
        return {
          value: set(new Ref('foreign', current.kind, current.salt)),
          label: `${where} foreign ${current.kind}`,
        };
      }
      if (Array.isArray(current) && current.length > 0 && typeof current[0] === 'string' && schema.items) {
        return { value: set([...current, new Ref('foreign', 'slideId')]), label: `${where} + foreign slide` };
      }
      if (schema.format === 'uuid' || schema.type === 'string') {
        const kind: RefKind = schema.format === 'uuid' ? 'deckId' : 'objectKey';
        return { value: set(new Ref('foreign', kind)), label: `${where} foreign ${kind}` };
      }
      return { value: set(new Ref('foreign', 'organizationId')), label: `${where} foreign organizationId` };
    }
    case 'deep':
      return { value: set(mutation.value), label: `${where} := ${mutation.value.label}` };
    case 'everyString':
      return { value: appendToStrings(value, mutation.text), label: 'every string + unicode' };
  }
}

/**
 * Where a JSON value breaks its schema in a way no reading of the schema could allow: wrong
 * JSON type, unknown or missing field, value outside an enum, number out of bounds or off
 * its step, too many items. Lengths, patterns and formats are left out (the service trims
 * and lower-cases some strings before checking them, and counts length in UTF-16 units).
 * Returns undefined when the value fits.
 */
export function typeViolation(
  value: unknown,
  schema: Schema,
  context: SchemaContext,
  path = '',
): string | undefined {
  const alternatives = branches(schema, context);
  if (alternatives.length > 1) {
    const failures = alternatives.map((branch) => typeViolation(value, branch, context, path));
    return failures.every(Boolean)
      ? (failures.find((f) => f && !f.endsWith('has the wrong type')) ?? failures[0])
      : undefined;
  }
  const one = alternatives[0] ?? {};
  if (Array.isArray(one.enum) && !one.enum.includes(value))
    return `${path || '(root)'} is not one of ${one.enum.join(', ')}`;
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  const wrongType = `${path || '(root)'} has the wrong type`;
  switch (one.type) {
    case undefined:
      return undefined;
    case 'integer':
    case 'number': {
      if (type !== 'number') return wrongType;
      const n = value as number;
      if (one.type === 'integer' && !Number.isInteger(n)) return `${path} is not an integer`;
      if (!Number.isFinite(n)) return `${path} is not finite`;
      if (one.minimum !== undefined && n < one.minimum) return `${path} is below ${one.minimum}`;
      if (one.maximum !== undefined && n > one.maximum) return `${path} is above ${one.maximum}`;
      if (
        one.multipleOf &&
        Math.abs(Math.round(n / one.multipleOf) * one.multipleOf - n) > 1e-9 * Math.max(1, Math.abs(n))
      ) {
        return `${path} is not a multiple of ${one.multipleOf}`;
      }
      return undefined;
    }
    case 'string':
    case 'boolean':
    case 'null':
      return type === one.type ? undefined : wrongType;
    case 'array': {
      if (type !== 'array') return wrongType;
      const items = value as unknown[];
      if (one.maxItems !== undefined && items.length > one.maxItems)
        return `${path} has more than ${one.maxItems} items`;
      if (one.minItems !== undefined && items.length < one.minItems)
        return `${path} has fewer than ${one.minItems} items`;
      for (const [index, item] of items.entries()) {
        const problem = typeViolation(item, one.items ?? {}, context, `${path}/${index}`);
        if (problem) return problem;
      }
      return undefined;
    }
    case 'object': {
      if (type !== 'object') return wrongType;
      const object = value as Record<string, unknown>;
      const properties: Record<string, Schema> = one.properties ?? {};
      for (const key of one.required ?? [])
        if (!Object.hasOwn(object, key)) return `${path}/${key} is missing`;
      for (const key of Object.keys(object)) {
        const property = properties[key];
        if (property) {
          const problem = typeViolation(object[key], property, context, `${path}/${key}`);
          if (problem) return problem;
        } else if (one.additionalProperties === false) {
          return `${path}/${key} is not a field`;
        } else if (one.additionalProperties && typeof one.additionalProperties === 'object') {
          const problem = typeViolation(object[key], one.additionalProperties, context, `${path}/${key}`);
          if (problem) return problem;
        }
      }
      return undefined;
    }
    default:
      return undefined;
  }
}
