// Stands in for trpc-to-openapi in the bundled declarations: a procedure's REST route metadata
// means nothing to a tRPC client, and the package is the server's dependency, not the client's.
export type OpenApiMeta<TMeta = Record<string, unknown>> = TMeta & { openapi?: unknown };
