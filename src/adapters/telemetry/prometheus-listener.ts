import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * The Prometheus scrape endpoint on a listener of its own: `GET /metrics` in the text
 * exposition format, everything else 404. Never on the application's port and never behind
 * its sign-in: whoever reaches this address may read the counters (bound to loopback by
 * default, docs/operations.md). Port 0 takes any free port; `url` says which.
 */
export async function listenForPrometheus(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
  port: number,
  host: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if ((request.method === 'GET' || request.method === 'HEAD') && path === '/metrics')
      return handler(request, response);
    response.statusCode = 404;
    response.end('Not found: the metrics are at /metrics\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address : { address: host, port, family: 'IPv4' };
  const hostText = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return {
    url: `http://${hostText}:${bound.port}/metrics`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
