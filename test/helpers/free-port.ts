/** A TCP port nobody listens on right now: the embedded database's own helper. */
export { freeLoopbackPort as freePort } from '../../adapters/database/embedded-postgres.ts';
