const KB = 1024;
const MB = 1024 * KB;

/**
 * A size as the docs and the interface write limits, in their binary sense ("10 MB" is 10 × 2^20
 * bytes): `10 MB`, `16 KB`, or the bytes of a size that is a whole multiple of neither.
 */
export function byteSize(bytes: number): string {
  if (bytes >= MB && bytes % MB === 0) return `${bytes / MB} MB`;
  if (bytes >= KB && bytes % KB === 0) return `${bytes / KB} KB`;
  return `${bytes} bytes`;
}
