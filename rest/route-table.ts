import type { AnyTRPCProcedure } from '@trpc/server';
import { forEachOpenApiProcedure, getInputOutputParsers, type OpenApiProcedureRecord } from 'trpc-to-openapi';
import type { z } from 'zod';
import { PROCEDURE_ACCESS } from '../domain/auth/access.ts';
import { appRouter } from '../routers/app-router.ts';
import type { Meta } from '../routers/trpc.ts';
import type { Admissible } from './admission.ts';
import type {
  HandWrittenRoute,
  ProcedureRoute,
  RestRoute,
  RouteInfo,
  Schema,
  StreamRoute,
  TextForm,
} from './route.ts';
import { voicePreviewRoute } from './voice-preview-route.ts';

/** The routes written by hand (not procedures). Add new ones here, nowhere else. */
const HAND_WRITTEN: HandWrittenRoute[] = [voicePreviewRoute].map((route) => ({
  ...route,
  forms: textForms(route.parameters),
}));

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

/** Every procedure of the router, by its dotted path (its /trpc name). */
const allProcedures = flatProcedures(appRouter);
checkDeclaredAccess(allProcedures);

/** What /trpc reads of a procedure to admit a call to it (rest/admission.ts) and to order a batch. */
export interface ProcedureInfo extends Admissible {
  type: 'query' | 'mutation' | 'subscription';
}

/** Every procedure's access, weight and type by its /trpc path, read once at start. */
export const procedureInfo: ReadonlyMap<string, ProcedureInfo> = new Map(
  Object.entries(allProcedures).map(([path, procedure]) => {
    const meta = procedure._def.meta as Meta;
    return [path, { access: meta.access!, heavy: meta.heavy === true, type: procedure._def.type }];
  }),
);

/** Every procedure with a REST route, read once at start (trpc-to-openapi reads their metadata). */
function procedureRoutes(): (ProcedureRoute | StreamRoute)[] {
  const routes: (ProcedureRoute | StreamRoute)[] = [];
  routes.push(...streamRoutes(allProcedures));
  forEachOpenApiProcedure<Meta>(
    allProcedures as unknown as OpenApiProcedureRecord,
    ({ path, type, procedure, meta }) => {
      if (type === 'subscription') throw new Error(`${path}: subscriptions have no REST route`);
      const parser = getInputOutputParsers(procedure).inputParser as unknown as Schema;
      // A procedure without input takes an optional empty object (`noInput`): REST always has one.
      const input =
        parser._zod.def.type === 'optional' ? (parser._zod.def as z.core.$ZodOptionalDef).innerType : parser;
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
        forms: textForms(def.shape),
        procedurePath: path,
        shape: def.shape,
        strict: def.catchall?._zod.def.type === 'never',
        multipartLimit: meta.multipartLimit,
        heavy: meta.heavy === true,
        sessionBound: meta.sessionBound === true,
        location: meta.location,
      });
      // A create names what it made; so may an accepted job (202) that can be followed there.
      if (
        (meta.successStatus === 201 && meta.location === undefined) ||
        (meta.location !== undefined && meta.successStatus !== 201 && meta.successStatus !== 202)
      ) {
        throw new Error(
          `${path}: a create (201) names its resource's location, and only a create or an accepted job (202)`,
        );
      }
    },
  );
  return routes;
}

/** Subscriptions with `meta.stream`: `GET /api<path>` as Server-Sent Events. */
function streamRoutes(procedures: Record<string, AnyTRPCProcedure>): StreamRoute[] {
  const routes: StreamRoute[] = [];
  for (const [path, procedure] of Object.entries(procedures)) {
    const meta = procedure._def.meta as Meta | undefined;
    if (!meta?.stream) continue;
    if (procedure._def.type !== 'subscription') throw new Error(`${path}: only a subscription is a stream`);
    const shape = (getInputOutputParsers(procedure).inputParser as unknown as Schema)._zod.def as {
      shape?: Record<string, Schema>;
    };
    if (!shape.shape) throw new Error(`stream ${path} needs exactly one z.object input`);
    const [router, name] = [path.slice(0, path.lastIndexOf('.')), path.slice(path.lastIndexOf('.') + 1)];
    routes.push({
      kind: 'stream',
      route: { method: 'GET', operationId: `${router.replaceAll('.', '-')}-${name}`, ...meta.stream },
      access: meta.access!,
      successStatus: 200,
      pathParameters: pathParametersOf(meta.stream.path),
      parameters: shape.shape,
      forms: textForms(shape.shape),
      procedurePath: path,
      shape: shape.shape,
    });
  }
  return routes;
}

/**
 * How each parameter's text is read, from its schema (read here, once, not per request): the
 * schema under optional/nullable/default/…, a list's element; as trpc-to-openapi did for query
 * strings. Nothing is coerced inside the schema itself, and JSON bodies never are.
 */
function textForms(parameters: Record<string, Schema>): Record<string, TextForm> {
  const forms: Record<string, TextForm> = {};
  for (const [name, schema] of Object.entries(parameters)) {
    const target = unwrap(schema);
    const list = target._zod.def.type === 'array';
    const value = list ? unwrap((target._zod.def as unknown as { element: Schema }).element) : target;
    const type = value._zod.def.type;
    forms[name] = { list, value: type === 'number' || type === 'boolean' ? type : 'text' };
  }
  return forms;
}

/** The schema under optional/nullable/default/…: what a present value must be. */
function unwrap(schema: Schema): Schema {
  for (;;) {
    const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
    switch (def.type) {
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'readonly':
      case 'catch':
      case 'nonoptional':
        schema = def.innerType as Schema;
        continue;
      case 'pipe': {
        // `.transform()`: the input side says what is accepted; `z.preprocess()`: the output side.
        const input = def.in as Schema;
        schema = input._zod.def.type === 'transform' ? (def.out as Schema) : input;
        continue;
      }
      default:
        return schema;
    }
  }
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
