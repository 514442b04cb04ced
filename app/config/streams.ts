import { z } from 'zod';
import { configSection, integer } from './section.ts';

/** The SSE and tRPC subscription streams: each caller's, organization's and instance's share, and how they are kept. */
export const streams = configSection({
  title: 'Live event streams',
  variables: {
    STREAMS_PER_CALLER: integer(1, 1000).default(5).meta({
      description:
        'Live streams (SSE and tRPC subscriptions, `generation.onProgress` included) one user or API key may hold open, counted across every instance (429 past it)',
    }),
    STREAMS_PER_ORGANIZATION: integer(1, 10_000).default(100).meta({
      description:
        'Live streams all the users and API keys of one organization may hold open, counted across every instance (429 past it); below STREAMS_PER_INSTANCE, so that one organization never fills an instance',
    }),
    STREAMS_PER_INSTANCE: integer(2, 10_000).default(192).meta({
      description:
        "Live streams one instance holds, whoever's (503 past it): keep it well below the connections the load balancer opens to one instance (`maxconn 256` in deploy/haproxy.cfg), so ordinary requests always find room",
    }),
    STREAM_LEASE_SECONDS: integer(1, 300).default(15).meta({
      description:
        "How long an instance's open streams count after it last renewed them (it does every third of this): the streams of an instance killed without a stop stop counting against their organization's cap by then",
    }),
    STREAM_BUFFER_BYTES: integer(16 * 1024)
      .default(256 * 1024)
      .meta({
        description:
          'Events a live stream may hold for a client that does not read them; past it the client is disconnected (it resumes with `Last-Event-ID`)',
      }),
    STREAM_AUTH_CHECK_SECONDS: z.coerce.number().positive().max(50).default(30).meta({
      description:
        "How often each instance checks its open streams' sessions and API keys: a revoked one's streams end by then (at most 50, so that they end within a minute)",
    }),
    STREAM_POLL_INTERVAL_MS: integer(10, 60_000).default(1000).meta({
      description:
        'While streams are open, how often the instance reads the event log even without a notification (a lost one)',
    }),
  },
  check: (env, ctx) => {
    // Each organization a share of an instance's streams, each caller a share of its organization's.
    if (env.STREAMS_PER_ORGANIZATION >= env.STREAMS_PER_INSTANCE) {
      ctx.addIssue({
        code: 'custom',
        path: ['STREAMS_PER_ORGANIZATION'],
        message: `must be below STREAMS_PER_INSTANCE (${env.STREAMS_PER_INSTANCE}): one organization must not fill an instance`,
      });
    }
    if (env.STREAMS_PER_CALLER > env.STREAMS_PER_ORGANIZATION) {
      ctx.addIssue({
        code: 'custom',
        path: ['STREAMS_PER_CALLER'],
        message: `must be at most STREAMS_PER_ORGANIZATION (${env.STREAMS_PER_ORGANIZATION})`,
      });
    }
  },
  settings: (env) => ({
    /** The live event streams of this instance (domain/events/live-events.ts). */
    liveEvents: {
      streamsPerCaller: env.STREAMS_PER_CALLER,
      streamsPerOrganization: env.STREAMS_PER_ORGANIZATION,
      streamsPerInstance: env.STREAMS_PER_INSTANCE,
      leaseMs: env.STREAM_LEASE_SECONDS * 1000,
      bufferBytes: env.STREAM_BUFFER_BYTES,
      authCheckMs: env.STREAM_AUTH_CHECK_SECONDS * 1000,
      pollIntervalMs: env.STREAM_POLL_INTERVAL_MS,
    },
  }),
});
