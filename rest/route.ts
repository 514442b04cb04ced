import type { Context as KoaContext } from 'koa';
import type { z } from 'zod';
import type { ProcedureAccess } from '../domain/auth/access.ts';
import type { Auth } from '../domain/context.ts';
import type { Context } from '../routers/context.ts';
import type { Meta } from '../routers/trpc.ts';

export type Schema = z.core.$ZodType;
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What every /api route states about itself: the OpenAPI document and the walkers read this. */
export interface RouteInfo {
  method: HttpMethod;
  /** OpenAPI path under /api, e.g. `/decks/{deckId}`. */
  path: string;
  /** As trpc-to-openapi names a procedure's: `<router>-<procedure>`, e.g. `voices-previewVoice`. */
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  /** False only where no session is needed (login). */
  protect?: boolean;
  /** Further error statuses the route answers (409, 429, …). */
  errorResponses?: number[] | Record<number, string>;
}

interface RouteBase {
  route: RouteInfo;
  /** Who may call it (api.md, "Who may do what"); checked before its input is read. */
  access: ProcedureAccess;
  successStatus: number;
  /** The path parameters, in order. */
  pathParameters: string[];
  /** Each path and query parameter's schema (a path value is converted to what it wants). */
  parameters: Record<string, Schema>;
  /** How each parameter's text is read (from its schema, once at start: rest/route-table.ts). */
  forms: Record<string, TextForm>;
}

/**
 * What a path or query parameter's text is read as before its schema judges it: numbers and
 * booleans converted, anything else kept as text; a list parameter (`?id=a&id=b`) as a list.
 */
export interface TextForm {
  list: boolean;
  value: 'number' | 'boolean' | 'text';
}

/** A procedure served over REST: JSON in (body or query string), JSON out; or a multipart upload. */
export interface ProcedureRoute extends RouteBase {
  kind: 'json' | 'multipart';
  /** Dotted path in the router, e.g. `decks.createDeck` (the /trpc name of the same procedure). */
  procedurePath: string;
  /** The input object's fields, and whether it refuses others (`z.strictObject`). */
  shape: Record<string, Schema>;
  strict: boolean;
  /** Multipart routes: which `config.uploads` limit caps the file. */
  multipartLimit?: NonNullable<Meta['multipartLimit']>;
  /** Counted against the organization's heavy limit too. */
  heavy: boolean;
  /** Acts on the session presenting it: an Idempotency-Key is kept per session (rest/idempotency.ts). */
  sessionBound: boolean;
  /** A create's `Location`: an /api path with `{answer fields}` (routers/trpc.ts, `Meta.location`). */
  location?: string;
}

/**
 * A route whose answer is not JSON (the voice preview's MP3): written by hand, but declared
 * here like the others, so it is documented, authenticated and walked like them.
 */
export interface HandWrittenRoute extends RouteBase {
  kind: 'hand-written';
  /** The success response as documented (media type and description). */
  response: { contentType: string; description: string };
  /** Runs after the session and the path parameters were checked; writes `ctx.body`. */
  handle(
    ctx: KoaContext,
    context: Context & { auth: Auth },
    parameters: Record<string, unknown>,
  ): Promise<void>;
}

/**
 * A subscription served as Server-Sent Events (`meta.stream`): its input from the query string
 * (and `Last-Event-ID`), each value it yields one SSE message (rest/event-stream.ts).
 */
export interface StreamRoute extends RouteBase {
  kind: 'stream';
  procedurePath: string;
  /** The input object's fields (query parameters). */
  shape: Record<string, Schema>;
}

export type RestRoute = ProcedureRoute | HandWrittenRoute | StreamRoute;
