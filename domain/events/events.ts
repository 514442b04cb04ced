import type { EntityManager } from '@mikro-orm/postgresql';
import { Event } from '../../entities/Event.ts';
import { newId } from '../../entities/ids.ts';
import type { Actor } from '../context.ts';

/** The events the service records (their types, by aggregate) and how one is recorded with its change. */

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

/** Who caused an event: a caller (user or API key), or the service itself (background work, operators). */
export type EventActor = Actor | { type: 'system' };

/** Events no caller caused: background jobs (generation, sweeps, auto-disable) and the admin CLI. */
export const SYSTEM_ACTOR: EventActor = { type: 'system' };

/**
 * Whose event it is: the organization, and who made the change. An `Auth` is one, so a
 * change made for a caller cannot forget its actor.
 */
export interface EventScope {
  organizationId: string;
  actor: EventActor;
}

export interface EventSubject {
  /** The id of the aggregate the event type names (for `deck.*` events, the deck). */
  aggregateId: string;
  /** The deck the change belongs to, when it belongs to one; added to the payload too. */
  deckId?: string | null;
  /** The resource as the route returned it. */
  payload: Record<string, unknown>;
}

/**
 * The one way to write the event log; the aggregate type follows from the event type
 * (`slide.created` → `slide`), and the payload gets `actor` (api.md: every event records it). It only persists the entry into `em`: the caller's flush (or
 * transaction) writes it together with the change, so a change that rolls back leaves no
 * event and a committed change always has one.
 */
export function recordEvent(
  em: EntityManager,
  scope: EventScope,
  eventType: EventType,
  subject: EventSubject,
): Event {
  const deckId = subject.deckId ?? null;
  const event = em.create(Event, {
    id: newId(),
    organization: scope.organizationId,
    eventType,
    aggregateType: aggregateOf(eventType) satisfies AggregateType,
    aggregateId: subject.aggregateId,
    deckId,
    occurredAt: new Date(),
    payload: { ...subject.payload, ...(deckId ? { deckId } : {}), actor: { ...scope.actor } },
  });
  em.persist(event);
  return event;
}
