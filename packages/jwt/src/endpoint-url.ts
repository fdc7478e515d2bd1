/**
 * Checks an authorization server's URL when a verifier is built: a key set or a client secret
 * fetched over plain HTTP off loopback is refused at start-up, not at the first request.
 * @module
 */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The URL of an authorization server endpoint: `https:`, or `http:` on a loopback host only (a
 * key set or a client secret over plain HTTP elsewhere is refused when the verifier is built).
 */
export function endpointUrl(value: string | URL, option: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${option} must be an absolute URL`);
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) return url;
  throw new TypeError(`${option} must be an https: URL (http: is accepted on a loopback host only)`);
}
