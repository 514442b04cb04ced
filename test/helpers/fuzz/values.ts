/**
 * The values a generated request is made of. Ids are symbolic (`Ref`) until the request is
 * sent: resources get deleted and re-created during a run, and a shrunk counterexample must
 * still point at the resource it meant. `RawJson` is spliced into a body as written (deep
 * nesting, number literals JSON.stringify cannot produce).
 */

export type RefKind =
  | 'deckId'
  | 'slideId'
  | 'pricingSlideId'
  | 'faqId'
  | 'actionConfigId'
  | 'subscriptionId'
  | 'apiKeyId'
  | 'imageId'
  | 'documentId'
  | 'pendingDocumentId'
  | 'organizationId'
  | 'userId'
  | 'objectKey'
  | 'email'
  | 'password'
  | 'voiceId'
  | 'exportId'
  /** Every slide of the deck, shuffled by `salt`: a valid reorder body. */
  | 'deckSlideIds';

export type Owner = 'own' | 'foreign';

export class Ref {
  readonly owner: Owner;
  readonly kind: RefKind;
  readonly salt: number;
  constructor(owner: Owner, kind: RefKind, salt = 0) {
    this.owner = owner;
    this.kind = kind;
    this.salt = salt;
  }
  toString(): string {
    return `<${this.owner}.${this.kind}${this.kind === 'deckSlideIds' ? `#${this.salt}` : ''}>`;
  }
}

export class RawJson {
  readonly text: string;
  readonly label: string;
  constructor(text: string, label: string) {
    this.text = text;
    this.label = label;
  }
  toString(): string {
    return `<raw ${this.label}>`;
  }
}

/** Resolves a Ref to what is sent (a string, or an array of strings for deckSlideIds). */
export type Resolver = (ref: Ref) => unknown;

/** JSON text of a value holding Refs and RawJson; lone surrogates come out as \\u escapes. */
export function serialize(value: unknown, resolve: Resolver): string {
  if (value instanceof Ref) return serialize(resolve(value), resolve);
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map((item) => serialize(item, resolve)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .map((key) => `${JSON.stringify(key)}:${serialize((value as Record<string, unknown>)[key], resolve)}`)
      .join(',')}}`;
  }
  if (value === undefined) return 'null';
  return JSON.stringify(value);
}

/** The value with every Ref resolved (RawJson left as is). */
export function resolveDeep(value: unknown, resolve: Resolver): unknown {
  if (value instanceof Ref) return resolve(value);
  if (value instanceof RawJson) return value;
  if (Array.isArray(value)) return value.map((item) => resolveDeep(item, resolve));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      defineField(out, key, resolveDeep((value as Record<string, unknown>)[key], resolve));
    }
    return out;
  }
  return value;
}

/** Sets an own enumerable field, even one named `__proto__`. */
export function defineField(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
}

/** True when a value holds a Ref of the foreign organization anywhere. */
export function hasForeignRef(value: unknown): boolean {
  if (value instanceof Ref) return value.owner === 'foreign';
  if (Array.isArray(value)) return value.some(hasForeignRef);
  if (value !== null && typeof value === 'object' && !(value instanceof RawJson)) {
    return Object.values(value).some(hasForeignRef);
  }
  return false;
}

/**
 * Percent-encodes any JavaScript string, lone surrogates included (as the three bytes a
 * WTF-8 encoder would write, which is not valid UTF-8: exactly what an attacker can send).
 */
export function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += `%${(0xe0 | (code >> 12)).toString(16).toUpperCase()}%${(0x80 | ((code >> 6) & 0x3f)).toString(16).toUpperCase()}%${(0x80 | (code & 0x3f)).toString(16).toUpperCase()}`;
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

/** A short, printable rendering of a value for failure reports (long strings abbreviated). */
export function preview(value: unknown, limit = 600): string {
  let text: string;
  try {
    text = serialize(value, (ref) => ref.toString());
  } catch {
    text = String(value);
  }
  const length = text.length;
  text = text
    .slice(0, limit * 8)
    .replace(/(.)\1{40,}/gsu, (run, char: string) => `${char}…×${[...run].length}`);
  if (length > limit * 8) text += `… (${length} chars)`;
  return text.length > limit ? `${text.slice(0, limit)}… (${text.length} chars)` : text;
}
