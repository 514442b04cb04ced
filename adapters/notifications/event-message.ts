import type { EventToDeliver } from '../../domain/ports/notifier.ts';

/** The webhook body of `docs/api.md`: `{type, timestamp, data: {id, aggregateType, aggregateId, deckId, payload}}`. */
export function webhookBody(event: EventToDeliver): string {
  return JSON.stringify({
    type: event.eventType,
    timestamp: event.occurredAt.toISOString(),
    data: {
      id: event.id,
      aggregateType: event.aggregateType,
      aggregateId: event.aggregateId,
      deckId: event.deckId,
      payload: event.payload,
    },
  });
}

/** A readable e-mail: what happened, to what, when, and the payload for the details. */
export function emailMessage(event: EventToDeliver, subscriptionName: string) {
  const name =
    typeof event.payload.name === 'string'
      ? event.payload.name
      : typeof event.payload.title === 'string'
        ? event.payload.title
        : null;
  const subject = `[Deck service] ${event.eventType}: ${event.aggregateType.replaceAll('_', ' ')} ${name ? `“${name}”` : event.aggregateId}`;
  const text = [
    `${event.eventType} — ${event.occurredAt.toISOString()}`,
    '',
    `What: ${event.aggregateType.replaceAll('_', ' ')} ${event.aggregateId}${name ? ` (${name})` : ''}`,
    ...(event.deckId ? [`Deck: ${event.deckId}`] : []),
    `Event id: ${event.id}`,
    '',
    'Details:',
    JSON.stringify(event.payload, null, 2),
    '',
    `You receive this because of the subscription “${subscriptionName}”.`,
  ].join('\n');
  return { subject, text };
}
