/**
 * An OpenID provider's discovery document, and nothing else, over https on loopback: the
 * front-channel logout row needs Gatehouse to know its provider's issuer (read once, from
 * discovery), and the production posture accepts no http Authority. The certificate is made
 * for the run; the row's server trusts it through NODE_EXTRA_CA_CERTS. Nothing else of the
 * provider is ever asked for: the row's requests end nothing and redeem nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeSigningCredential } from '../saml/signing-credential.js';

export interface BenchDiscovery {
  issuer: string;
  /** The certificate as a file, for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  stop(): Promise<void>;
}

export async function startBenchDiscovery(): Promise<BenchDiscovery> {
  const tls = makeSigningCredential({ commonName: '127.0.0.1', altNames: ['127.0.0.1'] });
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-discovery-'));
  const caFile = join(dir, 'ca.crt');
  writeFileSync(caFile, tls.certificatePem);
  let issuer = '';
  const server = createServer({ key: tls.privateKeyPem, cert: tls.certificatePem }, (req, res) => {
    if (req.url !== '/.well-known/openid-configuration') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        issuer,
        authorization_endpoint: `${issuer}/auth`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        frontchannel_logout_supported: true,
        frontchannel_logout_session_supported: true,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    caFile,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        rmSync(dir, { recursive: true, force: true });
      }),
  };
}
