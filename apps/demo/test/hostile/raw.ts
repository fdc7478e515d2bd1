import { connect } from 'node:net';

/** What came back on a raw connection: the status (0 when the server closed without one) and the text. */
export interface RawAnswer {
  status: number;
  text: string;
  /** Bytes of the body the server let this client write before it answered. */
  written: number;
}

/**
 * Writes `head` (the request line and headers, CRLF-separated, without the blank line), then
 * `bodyStart` and `bodyBytes` bytes of `x` in 16 KiB chunks, stopping as soon as an answer arrives: a server
 * that answers a body it refused without reading the rest answers long before the last chunk.
 */
export function rawExchange(url: string, head: string, bodyBytes = 0, bodyStart = ''): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    let written = 0;
    let answered = false;
    const chunk = Buffer.alloc(16 * 1024, 'x');
    const finish = () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text, written });
    socket.on('data', (data) => {
      text += data.toString('latin1');
      // The server may keep the connection open for the rest of the body: stop here.
      if (!answered) setTimeout(() => socket.destroy(), 200);
      answered = true;
    });
    socket.on('close', () => finish());
    socket.on('error', (error: NodeJS.ErrnoException) => (answered || written > 0 ? finish() : reject(error)));
    socket.write(`${head}\r\n\r\n${bodyStart}`);
    const pump = () => {
      while (!answered && written < bodyBytes) {
        const size = Math.min(chunk.length, bodyBytes - written);
        written += size;
        if (!socket.write(chunk.subarray(0, size))) return void socket.once('drain', pump);
      }
      if (!answered) socket.end();
    };
    pump();
  });
}
