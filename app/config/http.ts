import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { booleanFlag, configSection, integer } from './section.ts';

/** Whether a listen address is every address of the machine (`0.0.0.0`, `::`, `[::]`). */
function listensEverywhere(host: string): boolean {
  const address = host.replace(/^\[(.*)\]$/, '$1');
  // `process`: an IPv4-mapped IPv6 address (`::ffff:0.0.0.0`) is the IPv4 address it maps.
  return ipaddr.isValid(address) && ipaddr.process(address).range() === 'unspecified';
}

/** The listener: its address, what it trusts of a proxy, how long a client may take, how large a JSON body may be. */
export const http = configSection({
  title: 'HTTP',
  variables: {
    PORT: integer(0, 65535).default(3000).meta({ description: 'HTTP port (`0`: any free port)' }),
    HOST: z.string().min(1).default('0.0.0.0').meta({ description: 'Listen address' }),
    PUBLIC_URL: z.url().optional().meta({
      description:
        'Address clients reach the service at: absolute links it gives (storage, voice previews, the OpenAPI server) and the one other origin state-changing requests may come from',
    }),
    TRUST_PROXY: booleanFlag.default(false).meta({
      description:
        "Trust one proxy's `X-Forwarded-*` (client address, https → `Secure` cookie). Only for instances that nothing but the balancer can reach: with `HOST` on every address the service refuses to start unless `TRUST_PROXY_ON_EVERY_ADDRESS=true`",
    }),
    TRUST_PROXY_ON_EVERY_ADDRESS: booleanFlag.default(false).meta({
      description:
        'Allow `TRUST_PROXY` while `HOST` listens on every address (`0.0.0.0`, `::`): say so only where the network lets nothing but the balancer reach the port (a private container network)',
    }),
    HTTP_HEADERS_TIMEOUT_MS: integer(1000)
      .default(20_000)
      .meta({ description: "A client's request line and headers must arrive within this (408)" }),
    HTTP_REQUEST_TIMEOUT_MS: integer(1000)
      .default(300_000)
      .meta({ description: '…and its whole request, uploads included' }),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: integer(1000, 3_600_000).default(5000).meta({
      description:
        'How long an idle connection stays open. Behind a load balancer, longer than it keeps its idle connections to an instance (`npm run cluster`: 120000): one the instance closes as the balancer reuses it cuts that request',
    }),
    JSON_BODY_LIMIT_BYTES: integer(1024)
      .default(1024 * 1024)
      .meta({ description: 'Largest JSON body (413 past it)' }),
  },
  check: (env, ctx) => {
    // Anyone who reaches a port that believes X-Forwarded-For picks their own address, and with it
    // escapes the sign-in throttle (docs/security.md, "Trusted").
    if (env.TRUST_PROXY && !env.TRUST_PROXY_ON_EVERY_ADDRESS && listensEverywhere(env.HOST)) {
      ctx.addIssue({
        code: 'custom',
        path: ['TRUST_PROXY'],
        message: `trusts X-Forwarded-For from whoever reaches the port, and HOST=${env.HOST} lets anyone reach it: set HOST to an address only the balancer reaches (127.0.0.1 beside it), or TRUST_PROXY_ON_EVERY_ADDRESS=true where the network already ensures that`,
      });
    }
  },
  settings: (env) => ({
    port: env.PORT,
    host: env.HOST,
    /** Where clients reach this service; used for absolute links it hands out. */
    publicUrl: env.PUBLIC_URL?.replace(/\/$/, ''),
    trustProxy: env.TRUST_PROXY,
    jsonBodyLimitBytes: env.JSON_BODY_LIMIT_BYTES,
    http: {
      /** A client must have sent its request line and headers within this. */
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      /** …and its whole request (uploads included) within this. */
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      /** An idle connection is closed after this (Node's own default: 5 s). */
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    },
  }),
});
