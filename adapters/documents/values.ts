import type { Finding } from './findings.ts';

/**
 * The filled-in values of a contract (parties, dates, money, percentages, durations, addresses,
 * e-mail addresses, phone numbers, governing law and venue, key-terms tables), named from their
 * context, with no network.
 */
export function detectValues(_text: string): Finding[] {
  return [];
}
