/**
 * SQL: subscription `s` wants event `e` — same organization, the deck it is restricted to (if
 * any), and its event type: exact, `<aggregate>.*` or `*`. Shared by the dispatcher and replays,
 * so both deliver exactly the same events.
 */
export const SUBSCRIPTION_MATCHES_EVENT = `s.organization_id = e.organization_id
  and (s.deck_id is null or s.deck_id = e.deck_id)
  and (s.event_type = '*' or s.event_type = e.event_type
       or (right(s.event_type, 2) = '.*' and starts_with(e.event_type, left(s.event_type, -1))))`;
