import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';

/** Resolves with the port once `server` listens. */
export const listening = (server: Server) =>
  new Promise<number>((resolve) => server.once('listening', () => resolve((server.address() as AddressInfo).port)));

/** Drops every connection and closes `server`. */
export const closing = (server: Server) =>
  new Promise<void>((resolve, reject) => {
    server.closeAllConnections();
    server.close((error) => (error ? reject(error) : resolve()));
  });

/** Listens on 127.0.0.1, on a port the system picks, and resolves with the server's base URL. */
export const servingOnLoopback = async (server: Server) => {
  server.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${await listening(server)}`;
};
