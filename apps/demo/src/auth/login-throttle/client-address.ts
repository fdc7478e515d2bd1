/**
 * The address a request came from, as the login throttle keys it: the TCP peer's address, with
 * an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) read as the IPv4 one, so that one client is
 * one key on a dual-stack listener. Headers such as `X-Forwarded-For` are not read: any client
 * can write them. Behind a reverse proxy every client would share the proxy's address, and the
 * proxy would have to pass the real one on in a header only it can set.
 *
 * @example
 * ```ts
 * const createContext = ({ req }: { req: IncomingMessage }) => ({ req, services, clientAddress: clientAddress(req.socket) });
 * ```
 */
export function clientAddress(socket: { remoteAddress?: string | undefined } | null | undefined): string {
  const address = socket?.remoteAddress;
  if (address === undefined) return 'unknown';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice('::ffff:'.length) : address;
}
