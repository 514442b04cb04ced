/** The service's address without trailing slashes, so that `${base}/trpc` has one. */
export function serviceAddress(baseUrl: string): string {
  let address = baseUrl;
  while (address.endsWith('/')) address = address.slice(0, -1);
  return address;
}
