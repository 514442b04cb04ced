import { appRouter } from '../routers/app-router.ts';
import type { Meta } from '../routers/trpc.ts';

type OpenApiRoute = NonNullable<Meta['openapi']>;

export interface RestProcedure {
  /** The procedure's dotted path in the router, e.g. `decks.create`. */
  path: string;
  route: OpenApiRoute;
  successStatus: number;
  /** Set on multipart upload routes: which `config.uploads` limit caps the file. */
  multipartLimit?: NonNullable<Meta['multipartLimit']>;
}

/** Every procedure that has a REST route, read once from the router's metadata (`_def.procedures` is flat, keyed by dotted path). */
export const restProcedures: RestProcedure[] = Object.entries(
  appRouter._def.procedures as unknown as Record<string, { _def: { meta?: Meta } }>,
)
  .filter(([, procedure]) => procedure._def.meta?.openapi)
  .map(([path, procedure]) => ({
    path,
    route: procedure._def.meta!.openapi!,
    successStatus: procedure._def.meta!.successStatus ?? 200,
    multipartLimit: procedure._def.meta!.multipartLimit,
  }));
