import { createServer as createTcpServer, type AddressInfo, type Server } from 'node:net';
import { createServer as createHttpServer, type RequestListener } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { makeSigningCredential } from '../../scripts/saml/signing-credential.js';

/** A listener on a loopback address that counts the connections it receives and closes each at once. */
export interface ConnectionCounter {
  readonly port: number;
  readonly connections: number;
  close(): Promise<void>;
}

/** Counts connections at `host` (`127.0.0.1`, `127.0.0.2`, `::1`), on `port` (0: a free one). */
export async function countConnections(host: string, port = 0): Promise<ConnectionCounter> {
  let connections = 0;
  const server = createTcpServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  const bound = await listen(server, host, port);
  return {
    port: bound,
    get connections() {
      return connections;
    },
    close: () => close(server),
  };
}

/** An http or https server on a loopback address, counting its connections. */
export interface LoopbackSite {
  readonly port: number;
  readonly connections: number;
  /** https: its self-signed certificate (PEM), the one authority a client must trust for it. */
  readonly ca: string;
  close(): Promise<void>;
}

/**
 * An https server at `host` whose certificate names `names` (DNS names: a test's lookup
 * maps them to loopback), or a plain http server when `names` is empty.
 */
export async function startSite(
  host: string,
  handler: RequestListener,
  options: { names?: string[]; port?: number } = {},
): Promise<LoopbackSite> {
  const names = options.names ?? [];
  const credential = names.length > 0 ? makeSigningCredential({ commonName: names[0], altNames: names }) : undefined;
  const server = credential
    ? createHttpsServer({ key: credential.privateKeyPem, cert: credential.certificatePem }, handler)
    : createHttpServer(handler);
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  const port = await listen(server, host, options.port ?? 0);
  return {
    port,
    get connections() {
      return connections;
    },
    ca: credential?.certificatePem ?? '',
    close: () => {
      server.closeAllConnections();
      return close(server);
    },
  };
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
