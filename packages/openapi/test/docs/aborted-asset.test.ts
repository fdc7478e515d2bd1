/**
 * A client that goes away while createDocsHandler sends it a file of swagger-ui-dist leaves no
 * file open behind it: counted in the process's open file descriptors after twenty such clients,
 * over loopback (docs/contract.md#openapi).
 */
import { readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closing, servingOnLoopback } from '@trpc-oauth2/test-kit';
import { createDocsHandler } from '../../src/docs/node.js';

const openFiles = () => readdirSync('/proc/self/fd').length;
const HAS_PROC = (() => {
  try {
    return openFiles() > 0;
  } catch {
    return false;
  }
})();

describe.runIf(HAS_PROC)('createDocsHandler and a client that goes away mid-file', () => {
  const server = createServer((req, res) => createDocs(req, res) || res.writeHead(404).end());
  const createDocs = createDocsHandler({ documents: [{ url: '/openapi.json', document: { openapi: '3.1.0', info: { title: 'T', version: '1' }, paths: {} } }] });
  let origin = '';
  beforeAll(async () => {
    origin = await servingOnLoopback(server);
  });
  afterAll(() => closing(server));

  /** Asks for the largest file, reads its first bytes, and resets the connection. */
  const abandon = () =>
    new Promise<void>((resolve, reject) => {
      const { port } = new URL(origin);
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('GET /docs/swagger-ui-bundle.js HTTP/1.1\r\nHost: x\r\n\r\n'));
      socket.once('data', () => {
        socket.resetAndDestroy();
        resolve();
      });
      socket.on('error', reject);
    });

  it('closes the file of each', async () => {
    await abandon(); // the first one opens what the server keeps open whatever happens
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = openFiles();
    for (let i = 0; i < 20; i += 1) await abandon();
    // Let the server see each reset and close what it opened.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(openFiles() - before).toBeLessThan(5);
  });
});
