import { ACCESS_LEVELS, accessCovers } from '../auth/access.ts';
import { LISTED_ONLY_WITH } from '../events/event-log.ts';

/**
 * SQL: subscription `s` may receive event `e` — the rule of the event log (`LISTED_ONLY_WITH`)
 * applied to the subscription's `event_access`: events of users need admin, of API keys owner.
 * Built from constants of the code, never from input.
 */
export const SUBSCRIPTION_MAY_READ_EVENT = LISTED_ONLY_WITH.map(([aggregateType, needed]) => {
  const covering = ACCESS_LEVELS.filter((access) => accessCovers(access, needed));
  return `(e.aggregate_type <> '${aggregateType}' or s.event_access in (${covering.map((a) => `'${a}'`).join(', ')}))`;
}).join(' and ');

/**
 * SQL: subscription `s` wants event `e` — same organization, the deck it is restricted to (if
 * any), its event type (exact, `<aggregate>.*` or `*`), and an event its access may read.
 * Shared by the dispatcher and replays, so both deliver exactly the same events.
 */
export const SUBSCRIPTION_MATCHES_EVENT = `s.organization_id = e.organization_id
  and (s.deck_id is null or s.deck_id = e.deck_id)
  and (s.event_type = '*' or s.event_type = e.event_type
       or (right(s.event_type, 2) = '.*' and starts_with(e.event_type, left(s.event_type, -1))))
  and ${SUBSCRIPTION_MAY_READ_EVENT}`;
