// Stands in for the server's routers/context.ts in the bundled declarations: a procedure's
// context (database, services, logger) is the server's business; a client never sees it, and
// the real one would pull the server's drivers' types into an integrator's project.
export type Context = object;
