import { createServer, type Server } from 'node:http';

/**
 * An OTLP/HTTP endpoint that reads every export and drops it (200, nothing kept): what the
 * telemetry row exports its spans and metrics to, so that the row measures Gatehouse's
 * cost of recording and sending them, not a collector's.
 */
export async function startOtlpSink(): Promise<{ url: string; received: () => number; stop(): Promise<void> }> {
  let received = 0;
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('the OTLP sink is not listening');
  return {
    url: `http://127.0.0.1:${address.port}`,
    received: () => received,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
