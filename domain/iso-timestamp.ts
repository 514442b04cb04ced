/**
 * SQL for a timestamptz column as the ISO 8601 text `Date.prototype.toISOString()` gives
 * (UTC, milliseconds, `Z`), so rows read as text answer exactly like entities would. `MS`
 * truncates, as pg's parsing into a `Date` does.
 */
export function isoTimestamp(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
