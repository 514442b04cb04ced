import { SpanStatusCode, type Tracer } from '@opentelemetry/api';

/** Set by app/tracing.ts when tracing is on; unset, a procedure call runs as it is (no cost). */
let tracer: Tracer | undefined;

export function traceProcedures(active: Tracer): void {
  tracer = active;
}

/**
 * Runs one procedure call (a tRPC middleware's `next`) inside a span of its own, `trpc <path>`,
 * the child of the HTTP request's span and the parent of the SQL and outgoing calls it makes.
 */
export function inProcedureSpan<R extends { ok: boolean }>(path: string, run: () => Promise<R>): Promise<R> {
  if (!tracer) return run();
  return tracer.startActiveSpan(
    `trpc ${path}`,
    { attributes: { 'rpc.system': 'trpc', 'rpc.method': path } },
    async (span) => {
      try {
        const result = await run();
        if (!result.ok) span.setStatus({ code: SpanStatusCode.ERROR });
        return result;
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
