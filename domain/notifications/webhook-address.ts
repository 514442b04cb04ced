import ipaddr from 'ipaddr.js';

/**
 * The one rule for where a webhook may connect, applied to an address literal in the URL (at
 * creation, on PUT and again at delivery) and to every address DNS gives at delivery
 * (webhook-sender.ts). Only global unicast is public: loopback, private, link-local,
 * unique-local, carrier-grade NAT, multicast, unspecified (0.0.0.0, ::) and reserved ranges are
 * refused, and so is every IPv6 form that carries an IPv4 address: IPv4-compatible (::a.b.c.d,
 * deprecated and never a real destination), NAT64 (64:ff9b::/96, 64:ff9b:1::/48), 6to4
 * (2002::/16), Teredo and SIIT. IPv4-mapped (::ffff:a.b.c.d) is the IPv4 address itself and is
 * judged as such.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() === 'unicast';
  // ::/96 (IPv4-compatible, and :: and ::1): ipaddr.js calls most of it unicast.
  if (v6.parts.slice(0, 6).every((part) => part === 0)) return false;
  return v6.range() === 'unicast';
}

/** `localhost` and its subdomains are this machine (RFC 6761), with or without trailing dots. */
function isLocalhostName(hostname: string): boolean {
  let end = hostname.length;
  while (end > 0 && hostname[end - 1] === '.') end -= 1;
  const name = hostname.slice(0, end).toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Why a webhook URL is refused, or null: at creation and update (the issue on
 * `channelConfig.url`) and before every delivery. Credentials in the URL are refused outright:
 * they would be stored, shown in answers and events, and sent in the clear to the receiver.
 * Host names are checked again at delivery, after DNS, with isPublicAddress.
 */
export function webhookUrlProblem(url: string, allowPrivateNetworks: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be a URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be an http or https URL';
  if (parsed.username !== '' || parsed.password !== '') return 'must not contain a user name or password';
  if (allowPrivateNetworks) return null;
  // The WHATWG parser has already turned 2130706433, 0x7f.1 and 0177.1 into 127.0.0.1.
  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  if (host === '' || isLocalhostName(host)) return `must not name this machine (${host || 'no host'})`;
  if (ipaddr.isValid(host) && !isPublicAddress(host)) {
    return `must not name a private or loopback address (${host})`;
  }
  return null;
}
