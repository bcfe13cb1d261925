import { createServer } from 'node:net';

/**
 * A port the OS reports free (found by listening on port 0). For an app whose redirect
 * URI must be configured before it listens; the tiny window before it is reused is the
 * price of configuring absolute URLs from settings, never from the Host header.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
