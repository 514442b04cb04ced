/**
 * Access levels (api.md, "Who may do what"), each covering the ones before it: `read` (every
 * GET), `write` (deck content, files), `admin` (notification subscriptions, the user list),
 * `owner` (API keys, users). A user's role grants one of them.
 */
export const ACCESS_LEVELS = ['read', 'write', 'admin', 'owner'] as const;
export type Access = (typeof ACCESS_LEVELS)[number];
