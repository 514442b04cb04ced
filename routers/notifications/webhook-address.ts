import ipaddr from 'ipaddr.js';

/**
 * Webhooks go to the public internet only: loopback, private, link-local, unique-local,
 * carrier-grade NAT, multicast and reserved addresses are refused unless the operator
 * allows private networks (WEBHOOK_ALLOW_PRIVATE_NETWORKS).
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() === 'unicast';
}

/** Why a webhook URL is refused at creation, or null. Host names are checked again at delivery, after DNS. */
export function webhookUrlProblem(url: string, allowPrivateNetworks: boolean): string | null {
  const { protocol, hostname } = new URL(url);
  if (protocol !== 'https:' && protocol !== 'http:') return 'must be an http or https URL';
  if (allowPrivateNetworks) return null;
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'must not point at this machine';
  if (ipaddr.isValid(host) && !isPublicAddress(host))
    return 'must not point at a private, loopback or link-local address';
  return null;
}
