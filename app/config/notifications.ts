import { z } from 'zod';
import { booleanFlag, configSection, integer } from './section.ts';

/** The worker that delivers events to webhooks and e-mail: its pace, its retries, the mail server. */
export const notifications = configSection({
  title: 'Notifications',
  variables: {
    NOTIFICATIONS_ENABLED: booleanFlag
      .default(true)
      .meta({ description: 'Whether this instance dispatches events and sends notifications' }),
    NOTIFICATIONS_POLL_INTERVAL_MS: integer(10).default(1000).meta({
      description:
        'How often the notification worker looks for work it was not nudged about (events and retries of other instances, retries coming due)',
    }),
    NOTIFICATIONS_CONCURRENCY: integer(1, 100)
      .default(32)
      .meta({ description: 'Notifications one instance sends at once (each waits on a receiver)' }),
    NOTIFICATIONS_LEASE_SECONDS: integer(1, 3600).default(15).meta({
      description:
        "A claimed delivery's lease, renewed while held: how long a dead instance's deliveries wait",
    }),
    WEBHOOK_TIMEOUT_MS: integer(100)
      .default(10_000)
      .meta({ description: 'One webhook attempt (no redirects followed)' }),
    WEBHOOK_RETRY_SCHEDULE_SECONDS: z
      .string()
      .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'must be a comma-separated list of seconds')
      .default('5,300,1800,7200,18000,36000,86400')
      .meta({
        description: 'Delays before each retry, comma-separated (±10 % jitter); then the delivery fails',
      }),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: booleanFlag
      .default(false)
      .meta({ description: 'Allow webhooks to private, loopback and link-local addresses' }),
    WEBHOOK_DISABLE_AFTER_HOURS: z.coerce
      .number()
      .positive()
      .max(8760)
      .default(120)
      .meta({ description: 'A webhook whose deliveries all failed this long is switched off' }),
    WEBHOOK_REPLAY_MAX_DAYS: integer(1, 3650)
      .default(30)
      .meta({ description: 'How far back a replay may reach (400 past it)' }),
    WEBHOOK_REPLAY_MAX_EVENTS: integer(1, 1_000_000).default(10_000).meta({
      description:
        'Most events one replay may queue (400 past it), and most deliveries a subscription may have pending for a replay to start (409)',
    }),
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
      .optional()
      .meta({
        description:
          '`smtp://` or `smtps://` URL of the mail server for e-mail subscriptions; unset: e-mail subscriptions are refused (400)',
      }),
    MAIL_FROM: z
      .string()
      .min(3)
      .default('Deck service <no-reply@localhost>')
      .meta({ description: 'Sender of notification e-mails' }),
  },
  settings: (env) => ({
    notifications: {
      /** Whether this instance runs the dispatcher and delivery worker. */
      enabled: env.NOTIFICATIONS_ENABLED,
      pollIntervalMs: env.NOTIFICATIONS_POLL_INTERVAL_MS,
      concurrency: env.NOTIFICATIONS_CONCURRENCY,
      /** How long a claim holds a delivery without being renewed: what a dead instance's claims wait. */
      leaseSeconds: env.NOTIFICATIONS_LEASE_SECONDS,
      webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
      /** Delay before each retry; one more attempt than entries, then the delivery fails. */
      retryScheduleSeconds: env.WEBHOOK_RETRY_SCHEDULE_SECONDS.split(',').map(Number),
      allowPrivateNetworks: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      /** A webhook subscription whose deliveries have all failed this long is switched off. */
      disableAfterHours: env.WEBHOOK_DISABLE_AFTER_HOURS,
      /** How far back a replay may reach, and how many events one replay may queue. */
      replay: { maxDays: env.WEBHOOK_REPLAY_MAX_DAYS, maxEvents: env.WEBHOOK_REPLAY_MAX_EVENTS },
    },
    mail: { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM },
  }),
});
