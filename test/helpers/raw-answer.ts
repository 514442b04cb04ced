/** An HTTP answer read off a raw socket (tests that send partial or stalled bodies). */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** The answer in the bytes a socket received before it closed; null when it received none. */
export function parseAnswer(text: string): RawAnswer | null {
  if (text === '') return null;
  const [head, ...rest] = text.split('\r\n\r\n');
  const [statusLine, ...lines] = head!.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  const body = rest.join('\r\n\r\n');
  return { status: Number(statusLine!.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined };
}
