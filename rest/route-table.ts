import type { AnyTRPCProcedure } from '@trpc/server';
import type { Context as KoaContext } from 'koa';
import { forEachOpenApiProcedure, getInputOutputParsers, type OpenApiProcedureRecord } from 'trpc-to-openapi';
import type { z } from 'zod';
import type { Auth } from '../domain/context.ts';
import { appRouter } from '../routers/app-router.ts';
import type { Context } from '../routers/context.ts';
import { type Meta, PROCEDURE_ACCESS, type ProcedureAccess } from '../routers/trpc.ts';
import { voicePreviewRoute } from './voice-preview-route.ts';

type Schema = z.core.$ZodType;
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What every /api route states about itself: the OpenAPI document and the walkers read this. */
export interface RouteInfo {
  method: HttpMethod;
  /** OpenAPI path under /api, e.g. `/decks/{deckId}`. */
  path: string;
  summary?: string;
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
}

/** A procedure served over REST: JSON in (body or query string), JSON out; or a multipart upload. */
export interface ProcedureRoute extends RouteBase {
  kind: 'json' | 'multipart';
  /** Dotted path in the router, e.g. `decks.createDeck` (the /trpc name of the same procedure). */
  procedurePath: string;
  type: 'query' | 'mutation';
  /** Resolved once at start: the procedure itself, called with a context and a raw input. */
  procedure: AnyTRPCProcedure;
  /** The input object's fields, and whether it refuses others (`z.strictObject`). */
  shape: Record<string, Schema>;
  strict: boolean;
  /** Multipart routes: which `config.uploads` limit caps the file. */
  multipartLimit?: NonNullable<Meta['multipartLimit']>;
  /** Counted against the organization's heavy limit too. */
  heavy: boolean;
  /** Acts on the session presenting it: an Idempotency-Key is kept per session (rest/idempotency.ts). */
  sessionBound: boolean;
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

export type RestRoute = ProcedureRoute | HandWrittenRoute;

/** The routes written by hand (not procedures). Add new ones here, nowhere else. */
const HAND_WRITTEN: HandWrittenRoute[] = [voicePreviewRoute];

/** What a built router adds to its record of procedures and nested routers. */
const ROUTER_MEMBERS = new Set(['_def', 'createCaller']);

/**
 * The router's procedures, flat and keyed by dotted path, found through the router's own
 * (public) keys: a procedure is a function, a nested router an object.
 */
function flatProcedures(record: object, prefix = '', into: Record<string, AnyTRPCProcedure> = {}) {
  for (const [key, value] of Object.entries(record)) {
    if (ROUTER_MEMBERS.has(key)) continue;
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'function') into[path] = value as AnyTRPCProcedure;
    else if (value && typeof value === 'object') flatProcedures(value, path, into);
  }
  return into;
}

/**
 * Every procedure, REST or not, must say who may call it: one without `meta.access` (or
 * with an unknown one) stops the service at start rather than answering anyone.
 */
export function checkDeclaredAccess(procedures: Record<string, AnyTRPCProcedure>): void {
  const undeclared = Object.entries(procedures)
    .filter(([, procedure]) => {
      const access = (procedure._def.meta as Meta | undefined)?.access;
      return !access || !PROCEDURE_ACCESS.includes(access);
    })
    .map(([path]) => path);
  if (undeclared.length > 0) throw new Error(`Procedures without a meta.access: ${undeclared.join(', ')}`);
}

/** Every procedure with a REST route, read once at start (trpc-to-openapi reads their metadata). */
function procedureRoutes(): ProcedureRoute[] {
  const routes: ProcedureRoute[] = [];
  const procedures = flatProcedures(appRouter);
  checkDeclaredAccess(procedures);
  forEachOpenApiProcedure<Meta>(
    procedures as unknown as OpenApiProcedureRecord,
    ({ path, type, procedure, meta }) => {
      if (type === 'subscription') throw new Error(`${path}: subscriptions have no REST route`);
      const input = getInputOutputParsers(procedure).inputParser as unknown as Schema;
      const def = input._zod.def as { type: string; shape?: Record<string, Schema>; catchall?: Schema };
      if (def.type !== 'object' || !def.shape) {
        throw new Error(`REST procedure ${path} needs exactly one z.object input`);
      }
      routes.push({
        kind: meta.multipartLimit ? 'multipart' : 'json',
        route: meta.openapi as RouteInfo,
        access: meta.access!,
        successStatus: meta.successStatus ?? 200,
        pathParameters: pathParametersOf(meta.openapi.path),
        parameters: def.shape,
        procedurePath: path,
        type,
        procedure: procedure as unknown as AnyTRPCProcedure,
        shape: def.shape,
        strict: def.catchall?._zod.def.type === 'never',
        multipartLimit: meta.multipartLimit,
        heavy: meta.heavy === true,
        sessionBound: meta.sessionBound === true,
      });
    },
  );
  return routes;
}

export function pathParametersOf(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
}

/** Every /api route, in one table: the dispatcher, the OpenAPI document and the tests read it. */
export const restRoutes: readonly RestRoute[] = [...procedureRoutes(), ...HAND_WRITTEN];
for (const route of HAND_WRITTEN) {
  if (!PROCEDURE_ACCESS.includes(route.access)) {
    throw new Error(`${route.route.method} ${route.route.path} declares no access`);
  }
}
