/**
 * The SAML ACS as the performance gate counts it: a Gatehouse in the production posture
 * with Saml2 enabled against an identity provider whose metadata this process serves over
 * https on loopback, and for each counted request a POST of a signed response to
 * /Saml2/Acs that completes a sign-in (the whole check: decoding, shape, signatures,
 * samlify with the schema validation, the replay record; then the new session, its sign-in
 * record, the user's index and the audit event). Each response answers a challenge the
 * server began for it, with the flow-binding cookie that challenge set: the challenges and
 * the signing (xml-crypto) are done before the count, so only the ACS requests count.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { identityProviderMetadataXml, readRedirectedAuthnRequest } from '../saml/authn-request.js';
import { assertionXml, encodeForPost, responseXml, signElement } from '../saml/saml-response.js';
import { makeSigningCredential } from '../saml/signing-credential.js';
import type { CountedLoad } from './callgrind.js';
import { productionEnv } from './rows.js';

/** How many ACS requests are in flight at once: a handful of browsers returning from the provider. */
const CONCURRENT = 4;
const behindProxy = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' };

export interface BenchIdentityProvider {
  /** The server's environment: the memory store, Saml2 against this provider, its certificate trusted. */
  env: Record<string, string>;
  /** The load for a server listening on `port`. */
  loadFor(port: string): CountedLoad;
  stop(): Promise<void>;
}

export async function startBenchIdentityProvider(): Promise<BenchIdentityProvider> {
  const tls = makeSigningCredential({ commonName: '127.0.0.1', altNames: ['127.0.0.1'] });
  const signing = makeSigningCredential();
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-saml-'));
  const caFile = join(dir, 'ca.crt');
  writeFileSync(caFile, tls.certificatePem);
  let origin = '';
  const server = createServer({ key: tls.privateKeyPem, cert: tls.certificatePem }, (req, res) => {
    if (req.url !== '/metadata') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' });
    res.end(identityProviderMetadataXml(`${origin}/metadata`, `${origin}/sso`, [signing.certificateBody]));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const entityId = `${origin}/metadata`;
  const audience = `${productionEnv.ProjectTemplate__Hosting__PublicOrigin}/saml`;
  let users = 0;

  /** A challenge begun by the server, and the signed response the provider would post back for it. */
  async function prepareOne(base: string): Promise<{ cookie: string; body: string }> {
    const challenge = await send(`${base}/External/Challenge?provider=Saml2&returnUrl=%2Fapi%2Fapp-info`, 'GET', {});
    const location = challenge.headers.location;
    if (challenge.status !== 302 || !location) throw new Error(`the SAML challenge was answered ${challenge.status}`);
    const request = readRedirectedAuthnRequest(location);
    const cookie = (challenge.headers['set-cookie'] ?? []).map((line) => line.slice(0, line.indexOf(';'))).join('; ');
    const user = ++users;
    const assertion = signElement(
      assertionXml({
        issuer: entityId,
        nameId: `user-${user}@example.com`,
        audiences: [audience],
        recipient: request.acsUrl,
        inResponseTo: request.id,
        attributes: {
          'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name': [`User ${user}`],
          'urn:oid:0.9.2342.19200300.100.1.3': [`user-${user}@example.com`],
        },
      }),
      'Assertion',
      { credential: signing },
    );
    const response = signElement(
      responseXml({ issuer: entityId, destination: request.acsUrl, inResponseTo: request.id }, assertion),
      'Response',
      { credential: signing },
    );
    const form = new URLSearchParams({ SAMLResponse: encodeForPost(response) });
    if (request.relayState !== undefined) form.set('RelayState', request.relayState);
    return { cookie, body: form.toString() };
  }

  return {
    env: {
      ...productionEnv,
      ProjectTemplate__Session__Store: 'Memory',
      ProjectTemplate__Session__PendingSignInsPerClient: '1000000000',
      ProjectTemplate__Authentication__Providers__Saml2__Enabled: 'true',
      ProjectTemplate__Authentication__Providers__Saml2__EntityId: audience,
      ProjectTemplate__Authentication__Providers__Saml2__MetadataUrl: entityId,
      NODE_EXTRA_CA_CERTS: caFile,
    },
    loadFor(port) {
      const base = `http://127.0.0.1:${port}`;
      return {
        async prepare(amount, phase) {
          const prepared: { cookie: string; body: string }[] = [];
          while (prepared.length < amount) {
            const batch = Math.min(CONCURRENT, amount - prepared.length);
            prepared.push(...(await Promise.all(Array.from({ length: batch }, () => prepareOne(base)))));
          }
          return async () => {
            let next = 0;
            const post = async () => {
              for (let item = prepared[next++]; item !== undefined; item = prepared[next++]) {
                const answer = await send(
                  `${base}/Saml2/Acs`,
                  'POST',
                  { cookie: item.cookie, 'content-type': 'application/x-www-form-urlencoded' },
                  item.body,
                );
                const location = answer.headers.location ?? '';
                if (answer.status !== 302 || !location.endsWith('/api/app-info')) {
                  throw new Error(`${phase}: the ACS answered ${answer.status} (to ${location || 'nowhere'})`);
                }
              }
            };
            await post();
          };
        },
      };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        rmSync(dir, { recursive: true, force: true });
      }),
  };
}

/**
 * One request on a connection of its own, its answer read whole. Not fetch: its pool keeps
 * idle connections, and a server slowed fifty times by valgrind closes one just as the
 * pool reuses it (ECONNRESET).
 */
function send(
  url: string,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method, agent: false, headers: { ...behindProxy, ...headers } }, (answer) => {
      answer.resume();
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, headers: answer.headers }));
      answer.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}
