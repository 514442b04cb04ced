/** The event catalogue of api.md: `<aggregate>.<past-tense verb>`. */
export const EVENT_TYPES = {
  deck: [
    'deck.created',
    'deck.updated',
    'deck.deleted',
    'deck.branding_updated',
    'deck.intro_saved',
    'deck.intro_deleted',
    'deck.slides_reordered',
  ],
  slide: ['slide.created', 'slide.updated', 'slide.deleted', 'slide.product_data_updated'],
  faq: ['faq.created', 'faq.updated', 'faq.deleted', 'faq.audio_failed'],
  action_config: [
    'action_config.created',
    'action_config.updated',
    'action_config.published',
    'action_config.deleted',
  ],
  generation_job: ['generation_job.started', 'generation_job.completed', 'generation_job.failed'],
  image: ['image.uploaded', 'image.deleted'],
  kb_document: ['kb_document.upload_initiated', 'kb_document.uploaded', 'kb_document.deleted'],
  contract: ['contract.imported'],
  notification_subscription: [
    'notification_subscription.created',
    'notification_subscription.updated',
    'notification_subscription.deleted',
    'notification_subscription.disabled',
    'notification_subscription.secret_rotated',
  ],
  user: ['user.logged_in', 'user.created', 'user.updated', 'user.deleted', 'user.password_changed'],
  api_key: ['api_key.created', 'api_key.revoked'],
} as const;

export type AggregateType = keyof typeof EVENT_TYPES;
export type EventType<A extends AggregateType = AggregateType> = (typeof EVENT_TYPES)[A][number];

/** The aggregate an event type belongs to: the part before the dot. */
export function aggregateOf(eventType: EventType): AggregateType {
  return eventType.slice(0, eventType.indexOf('.')) as AggregateType;
}
