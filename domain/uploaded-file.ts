// An uploaded file as the domain takes it: the REST multipart route builds one over the bytes
// it read, and the upload operations read them back without a copy.

/**
 * A `File` over bytes already in memory. Node's `File` copies what it is built from, and
 * reading it back (`arrayBuffer()`) copies again: for a 10 MB upload that is two needless
 * copies per request. This one keeps the bytes it was given; `bytesOf` hands them out as they are.
 */
export class InMemoryFile extends File {
  readonly #bytes: Buffer;

  constructor(bytes: Buffer, name: string, options: { type?: string } = {}) {
    super([], name, options);
    this.#bytes = bytes;
    Object.defineProperty(this, 'size', { value: bytes.length, enumerable: true });
  }

  get buffer(): Buffer {
    return this.#bytes;
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    return new Uint8Array(this.#bytes).buffer;
  }

  override async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return new Uint8Array(this.#bytes);
  }

  override async text(): Promise<string> {
    return this.#bytes.toString('utf8');
  }

  override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
    return new Blob([new Uint8Array(this.#bytes)]).stream();
  }

  override slice(start?: number, end?: number, contentType?: string): Blob {
    return new Blob([new Uint8Array(this.#bytes)]).slice(start, end, contentType);
  }
}

/** The bytes of an uploaded file: those of an `InMemoryFile` as they are, others read once. */
export async function bytesOf(file: File): Promise<Buffer> {
  if (file instanceof InMemoryFile) return file.buffer;
  return Buffer.from(await file.arrayBuffer());
}

/**
 * A file name PostgreSQL can store (in the row and in the event's jsonb): no NUL, no lone
 * UTF-16 surrogate. As api.md's "Text" says, anything else is a 400 with an issue on the field.
 */
export function isStorableName(name: string): boolean {
  return !name.includes('\u0000') && name.isWellFormed();
}
