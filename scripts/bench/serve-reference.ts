import type Koa from 'koa';

/**
 * Listens on a free loopback port, prints `READY <port>[ <cookie header>]` for the
 * benchmark, and exits on SIGTERM: the shared tail of the reference servers.
 */
export function serveReference(app: Koa, cookie?: string): void {
  const server = app.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (typeof address !== 'object' || address === null) throw new Error('not listening');
    process.stdout.write(`READY ${address.port}${cookie === undefined ? '' : ` ${cookie}`}\n`);
  });
  process.on('SIGTERM', () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
