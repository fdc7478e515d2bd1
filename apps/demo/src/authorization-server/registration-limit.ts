/**
 * How many clients one address may register (RFC 7591, `/oidc/reg`): registration is open to
 * anyone, and each registered client is stored for 30 days, so the rate per address is bounded.
 * @module
 */

/**
 * Registrations one client address may make per hour, on one server (default of
 * {@link registrationLimiter}): an MCP client registers once per installation.
 *
 * @example
 * ```ts
 * const allow = registrationLimiter(REGISTRATIONS_PER_HOUR);
 * ```
 */
export const REGISTRATIONS_PER_HOUR = 100;

const HOUR_MS = 60 * 60 * 1000;
// The addresses remembered at once, at most; the oldest window goes first.
const MAX_ADDRESSES = 10_000;

/**
 * The network an address counts for: an IPv4 address itself, an IPv6 one by its /64 (one host
 * commonly holds a whole /64, and would otherwise count as 2⁶⁴ addresses).
 *
 * @example
 * ```ts
 * registrationNetwork('2001:db8::1'); // '2001:db8:0:0::/64'
 * ```
 */
export function registrationNetwork(address: string): string {
  if (!address.includes(':')) return address;
  const [head = '', tail] = address.split('::', 2);
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => (/^[0-9a-f]{1,4}$/i.test(group) ? Number.parseInt(group, 16).toString(16) : group.toLowerCase()))
    .join(':')}::/64`;
}

/**
 * A fixed window of an hour per network ({@link registrationNetwork}), on this server: answers
 * `undefined` when `address` may register now (and counts it), else the seconds until it may.
 *
 * @example
 * ```ts
 * const retryAfter = allow(clientAddress(req.socket));
 * if (retryAfter !== undefined) answer429(retryAfter);
 * ```
 */
export function registrationLimiter(perHour: number = REGISTRATIONS_PER_HOUR): (address: string, now?: number) => number | undefined {
  const windows = new Map<string, { count: number; endsAt: number }>();
  return (address, now = Date.now()) => {
    const network = registrationNetwork(address);
    let window = windows.get(network);
    if (window === undefined || window.endsAt <= now) {
      windows.delete(network);
      if (windows.size >= MAX_ADDRESSES) windows.delete(windows.keys().next().value!);
      window = { count: 0, endsAt: now + HOUR_MS };
      windows.set(network, window);
    }
    if (window.count >= perHour) return Math.max(1, Math.ceil((window.endsAt - now) / 1000));
    window.count += 1;
    return undefined;
  };
}
