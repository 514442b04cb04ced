import type { Context as KoaContext } from 'koa';
import type { Issue } from '../domain/errors.ts';
import { MAX_INPUT_DEPTH } from '../routers/input-guard.ts';
import { hasBody, ProblemError, readRawBody } from './request-body.ts';

/** A 4xx about the body, with the field issues the problem should carry. */
export class BodyProblem extends ProblemError {
  readonly issues?: Issue[];
  constructor(status: number, detail: string, issues?: Issue[]) {
    super(status, detail);
    this.issues = issues;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a REST body: one JSON object, in UTF-8, under the size cap. No body reads as `{}`
 * (so `curl -X POST` works on routes with nothing to send). 415 for any other media type
 * or charset (`+json` types such as merge-patch mean something else); 413 past the cap (the
 * stream is cut there); 400 for bytes that are not UTF-8, malformed JSON, a body that is not
 * an object, a field named twice (no last-one-wins guessing) or nesting past MAX_INPUT_DEPTH.
 */
export async function readJsonObjectBody(
  ctx: KoaContext,
  limitBytes: number,
): Promise<Record<string, unknown>> {
  if (!hasBody(ctx)) return {};
  const type = ctx.get('content-type');
  if (!isUtf8Json(type)) {
    throw new BodyProblem(
      415,
      type
        ? `Content-Type ${type} is not supported here; send application/json (UTF-8)`
        : 'Send the body as application/json',
    );
  }
  const bytes = await readRawBody(ctx, limitBytes);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new BodyProblem(400, 'The request body is not valid UTF-8');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BodyProblem(400, 'The request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BodyProblem(400, 'The request body must be a JSON object', [
      { path: [], message: 'must be a JSON object' },
    ]);
  }
  checkStructure(text);
  return value as Record<string, unknown>;
}

/** `application/json`, with no charset or `charset=utf-8` (JSON is UTF-8; RFC 8259 §8.1). */
function isUtf8Json(contentType: string): boolean {
  const [mediaType, ...parameters] = contentType.split(';');
  if (mediaType!.trim().toLowerCase() !== 'application/json') return false;
  return parameters.every((parameter) => {
    const [name, value = ''] = parameter.split('=');
    if (name!.trim().toLowerCase() !== 'charset') return true;
    const charset = value.trim().replaceAll('"', '').toLowerCase();
    return charset === 'utf-8' || charset === 'utf8';
  });
}

interface Frame {
  isObject: boolean;
  /** The current member's name (objects) or element's index (arrays). */
  name: string;
  index: number;
  /** The names seen so far, made at the second member: most objects are small. */
  names: Set<string> | null;
}

/**
 * One linear pass over JSON text that is already known to be valid: refuses nesting deeper
 * than MAX_INPUT_DEPTH and a name repeated within one object (JSON.parse would keep the last
 * silently), each with the path where it happens. One frame per level, reused.
 */
function checkStructure(text: string): void {
  const frames: Frame[] = Array.from({ length: MAX_INPUT_DEPTH }, () => ({
    isObject: false,
    name: '',
    index: 0,
    names: null,
  }));
  let depth = 0;
  const pathOf = () => frames.slice(0, depth).map((frame) => (frame.isObject ? frame.name : frame.index));
  let expectName = false;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i;
      let escaped = false;
      i += 1;
      while (text.charCodeAt(i) !== 0x22) {
        if (text.charCodeAt(i) === 0x5c /* \ */) {
          escaped = true;
          i += 1;
        }
        i += 1;
      }
      i += 1;
      if (expectName) {
        const frame = frames[depth - 1]!;
        const name = escaped ? (JSON.parse(text.slice(start, i)) as string) : text.slice(start + 1, i - 1);
        if (frame.index > 0) {
          frame.names ??= new Set([frame.name]);
          if (frame.names.has(name)) {
            frame.name = name;
            throw new BodyProblem(400, 'The request body names a field twice', [
              { path: pathOf(), message: 'must appear only once' },
            ]);
          }
          frame.names.add(name);
        }
        frame.name = name;
        frame.index += 1;
        expectName = false;
      }
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (depth >= MAX_INPUT_DEPTH) {
        throw new BodyProblem(400, `The request body is nested more than ${MAX_INPUT_DEPTH} levels deep`, [
          { path: pathOf(), message: `must not be nested more than ${MAX_INPUT_DEPTH} levels deep` },
        ]);
      }
      const frame = frames[depth]!;
      frame.isObject = c === 0x7b;
      frame.name = '';
      frame.index = 0;
      frame.names = null;
      depth += 1;
      expectName = frame.isObject;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth -= 1;
      expectName = false;
    } else if (c === 0x2c /* , */) {
      const frame = frames[depth - 1]!;
      if (frame.isObject) expectName = true;
      else frame.index += 1;
    }
    i += 1;
  }
}
