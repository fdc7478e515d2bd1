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
