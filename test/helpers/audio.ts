/** True for MP3 data: an ID3 tag or an MPEG audio frame sync at the start. */
export function isMp3(bytes: Buffer): boolean {
  return (
    bytes.subarray(0, 3).toString('latin1') === 'ID3' || (bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0)
  );
}
