import { request } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SigningCredential } from '../../../scripts/saml/signing-credential.js';

/**
 * A TLS-terminating reverse proxy on loopback, as production puts in front of Gatehouse:
 * https in front (a self-signed certificate the browser is told to accept), plain http to
 * the app behind, with `X-Forwarded-Proto: https`, `X-Forwarded-Host` and the client
 * address appended to `X-Forwarded-For`, overwriting whatever the client sent.
 */
export class TlsProxy {
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(credential: SigningCredential, target: { port: number }, port = 0): Promise<TlsProxy> {
    const server = createServer({ key: credential.privateKeyPem, cert: credential.certificatePem }, (req, res) => {
      const headers = { ...req.headers };
      headers['x-forwarded-proto'] = 'https';
      headers['x-forwarded-host'] = req.headers.host ?? '';
      headers['x-forwarded-for'] = req.socket.remoteAddress ?? '';
      const upstream = request(
        { host: '127.0.0.1', port: target.port, method: req.method, path: req.url, headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.writeHead(502).end('bad gateway'));
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return new TlsProxy(server, (server.address() as AddressInfo).port);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
