/**
 * A webhook URL as callers below admin access, and every event, show it: receivers put their
 * tokens in the URL (`?token=…`, Slack's `/services/T…/B…/<secret>`), and whoever reads the
 * URL can post to the receiver as the service. docs/decisions/023-webhook-url-masking.md.
 */

export const URL_MASK = '***';

/** A lowercase word (a–z, one `-`, `_` or `.` between letters): path words such as `hooks`, `services`. */
const WORD = /^[a-z]+(?:[-_.][a-z]+)*$/;
const WORD_MAX_LENGTH = 20;

/** A path segment or query name shown as it is: a short lowercase word, which no generated token is. */
function isPlainWord(part: string): boolean {
  return part.length <= WORD_MAX_LENGTH && WORD.test(part);
}

/**
 * Scheme, host and port kept; each path segment that is not a plain word, every query value
 * (and each query name that is not a plain word) and the fragment replaced by `***`; user name
 * and password dropped (refused at creation anyway). A URL that does not parse is `***`.
 * One pass over the URL's parts: linear in its length.
 */
export function maskWebhookUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return URL_MASK;
  }
  const path = parsed.pathname
    .split('/')
    .map((segment) => (segment === '' || isPlainWord(segment) ? segment : URL_MASK))
    .join('/');
  const parameters = parsed.search
    .slice(1)
    .split('&')
    .filter((parameter) => parameter !== '')
    .map((parameter) => {
      const name = parameter.split('=', 1)[0]!;
      return `${isPlainWord(name) ? name : URL_MASK}=${URL_MASK}`;
    });
  const query = parameters.length > 0 ? `?${parameters.join('&')}` : '';
  const fragment = parsed.hash === '' ? '' : `#${URL_MASK}`;
  return `${parsed.protocol}//${parsed.host}${path}${query}${fragment}`;
}

/** A channel's configuration with its webhook URL masked (other channels' as they are). */
export function maskChannelConfig(config: Record<string, unknown>): Record<string, unknown> {
  return typeof config.url === 'string' ? { ...config, url: maskWebhookUrl(config.url) } : config;
}
