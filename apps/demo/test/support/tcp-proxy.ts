import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * One client connection through a {@link TcpProxy}, as the proxy saw it.
 */
export interface ProxiedConnection {
  /** The proxy was holding traffic when the connection came: nothing of it was ever forwarded yet. */
  readonly openedWhileHolding: boolean;
  /** Bytes the client sent that the proxy is holding (or held) instead of forwarding. */
  readonly heldFromClient: number;
  /** The client closed (or reset) it, before the proxy or the server closed it. */
  readonly closedByClient: boolean;
}

/**
 * A TCP proxy on 127.0.0.1 in front of a server: what a network does to a database between the
 * demo and PostgreSQL. It forwards, or it holds every byte both ways on every connection, open or
 * new, without closing any (a black hole: a partition, a host frozen), and delivers what it held,
 * in order, once it forwards again, as TCP does once a partition heals.
 */
export interface TcpProxy {
  /** Its port (the OS picked it). */
  readonly port: number;
  /** Every connection it has accepted, oldest first. */
  readonly connections: readonly ProxiedConnection[];
  /** Stops forwarding both ways, on every connection and on new ones, closing none. */
  hold(): void;
  /** Forwards again: what was held first, then what comes. */
  forward(): void;
  /** Closes every open connection, both sides. */
  dropAll(): void;
  /** Closes every connection and stops listening. */
  close(): Promise<void>;
}

interface Link extends ProxiedConnection {
  client: Socket;
  upstream: Socket;
  toServer: Buffer[];
  toClient: Buffer[];
  heldFromClient: number;
  closedByClient: boolean;
  /** The proxy closed it (told to, or the server had closed its side). */
  closedByProxy: boolean;
}

/**
 * Starts a {@link TcpProxy} to `port` on 127.0.0.1, forwarding.
 *
 * @example
 * ```ts
 * const proxy = await startTcpProxy(5432);
 * const url = new URL(databaseUrl);
 * url.port = String(proxy.port);
 * ```
 */
export async function startTcpProxy(port: number): Promise<TcpProxy> {
  const links: Link[] = [];
  let holding = false;
  const shut = (link: Link) => {
    if (!link.closedByClient) link.closedByProxy = true;
    link.client.destroy();
    link.upstream.destroy();
  };
  const server: Server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    const link: Link = {
      client,
      upstream,
      toServer: [],
      toClient: [],
      heldFromClient: 0,
      closedByClient: false,
      closedByProxy: false,
      openedWhileHolding: holding,
    };
    links.push(link);
    // A side reset under the proxy is not the proxy's fault: the other side is closed with it.
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
    client.on('data', (chunk: Buffer) => {
      if (!holding) return void upstream.write(chunk);
      link.toServer.push(chunk);
      link.heldFromClient += chunk.length;
    });
    upstream.on('data', (chunk: Buffer) => {
      if (holding) link.toClient.push(chunk);
      else client.write(chunk);
    });
    client.on('close', () => {
      if (!link.closedByProxy) link.closedByClient = true;
      upstream.destroy();
    });
    upstream.on('close', () => shut(link));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const open = () => links.filter((link) => !link.client.destroyed);
  return {
    port: (server.address() as { port: number }).port,
    connections: links,
    hold: () => void (holding = true),
    forward: () => {
      holding = false;
      for (const link of open()) {
        for (const chunk of link.toServer.splice(0)) link.upstream.write(chunk);
        for (const chunk of link.toClient.splice(0)) link.client.write(chunk);
      }
    },
    dropAll: () => open().forEach(shut),
    close: async () => {
      links.forEach(shut);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
