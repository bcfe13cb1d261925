/**
 * SAML responses validated per second, and resident memory after many, in one process.
 *
 *   node --expose-gc --import tsx scripts/bench/saml-validation.ts [count] [encrypted]
 *
 * Composes the compiled Gatehouse with Saml2 enabled against a metadata document served on
 * loopback, then hands its SAML adapter `count` distinct signed responses (xml-crypto,
 * written beforehand), four at a time, each answering a challenge the adapter began: the
 * whole ACS check (decoding, shape, signatures, the checks on the signed elements, samlify
 * with the schema validation by libxml2 in WebAssembly, the replay record in the memory
 * store). With `encrypted`, Gatehouse has an encryption key and every assertion arrives
 * encrypted (AES-256-GCM, RSA-OAEP with a 2048-bit key): the cost of decrypting, measured
 * by hand, not part of `npm run bench`. Prints one JSON line.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encryptAssertion } from '../saml/assertion-encryption.js';
import { identityProviderMetadataXml } from '../saml/authn-request.js';
import { assertionXml, encodeForPost, responseXml, signElement } from '../saml/saml-response.js';
import { makeSigningCredential } from '../saml/signing-credential.js';
import { loadCompiledGatehouse, projectRoot } from './dist-modules.js';

const count = Number(process.argv[2] ?? 1000);
const encrypted = process.argv[3] === 'encrypted';
const encryption = encrypted ? makeSigningCredential({ commonName: 'bench-sp-encryption' }) : undefined;
const gc = globalThis.gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

const credential = makeSigningCredential();
const server = createServer((_req, res) => {
  res.writeHead(200).end(identityProviderMetadataXml(entityId, `${origin}/sso`, [credential.certificateBody]));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const entityId = `${origin}/metadata`;
const publicOrigin = 'http://127.0.0.1:3999';
const acsUrl = `${publicOrigin}/Saml2/Acs`;
const audience = `${publicOrigin}/saml`;

const { createGatehouse } = await loadCompiledGatehouse();
const gatehouse = await createGatehouse({
  rootDir: projectRoot,
  env: {
    NODE_ENV: 'test',
    ProjectTemplate__Logging__Level: 'warn',
    ProjectTemplate__Hosting__PublicOrigin: publicOrigin,
    ProjectTemplate__Authentication__Providers__Saml2__Enabled: 'true',
    ProjectTemplate__Authentication__Providers__Saml2__EntityId: audience,
    ProjectTemplate__Authentication__Providers__Saml2__MetadataUrl: `${origin}/metadata`,
    ...(encryption
      ? {
          ProjectTemplate__Authentication__Providers__Saml2__EncryptionCertificate: encryption.certificatePem,
          ProjectTemplate__Authentication__Providers__Saml2__EncryptionKey: encryption.privateKeyPem,
        }
      : {}),
  },
  logDestination: { write: () => undefined },
});
const saml = gatehouse.identityProviders.find((provider) => provider.info.key === 'Saml2');
if (!saml) throw new Error('the Saml2 provider was not composed');

/** One challenge and its signed answer, as the identity provider would send it. */
async function prepare(index: number) {
  const start = await saml!.beginChallenge();
  const requestId = start.secrets.requestId ?? '';
  const signed = signElement(
    assertionXml({
      issuer: entityId,
      nameId: `user-${index}@example.com`,
      audiences: [audience],
      recipient: acsUrl,
      inResponseTo: requestId,
      attributes: {
        'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name': [`User ${index}`],
        'urn:oid:0.9.2342.19200300.100.1.3': [`user-${index}@example.com`],
        'http://schemas.xmlsoap.org/claims/Group': ['staff', 'ops', 'readers'],
      },
    }),
    'Assertion',
    { credential },
  );
  const assertion = encryption ? encryptAssertion(signed, { certificatePem: encryption.certificatePem }) : signed;
  const xml = signElement(
    responseXml({ issuer: entityId, destination: acsUrl, inResponseTo: requestId }, assertion),
    'Response',
    {
      credential,
    },
  );
  const form = new URLSearchParams({ SAMLResponse: encodeForPost(xml), RelayState: start.correlation });
  return { message: { method: 'POST' as const, url: new URL(acsUrl), form }, secrets: start.secrets };
}

function settledRss(): number {
  for (let i = 0; i < 3; i++) gc!();
  return process.memoryUsage().rss;
}

const warmUp = await Promise.all(Array.from({ length: 20 }, (_, i) => prepare(count + i)));
for (const { message, secrets } of warmUp) await saml.completeCallback(message, secrets);
const prepared = [];
for (let index = 0; index < count; index++) prepared.push(await prepare(index));
const rssBefore = settledRss();
const started = performance.now();
for (let index = 0; index < count; index += 4) {
  await Promise.all(
    prepared.slice(index, index + 4).map(({ message, secrets }) => saml.completeCallback(message, secrets)),
  );
}
const seconds = (performance.now() - started) / 1000;
// The prepared responses stay alive until after the second reading: only the checks' memory is compared.
const rssAfter = settledRss();
prepared.length = 0;
await gatehouse.shutdown();
server.close();

process.stdout.write(
  `${JSON.stringify({
    responses: count,
    ...(encrypted ? { encrypted } : {}),
    perSecond: Math.round(count / seconds),
    msEach: Math.round((seconds * 1000 * 10) / count) / 10,
    rssBeforeMb: Math.round(rssBefore / 1024 / 1024),
    rssAfterMb: Math.round(rssAfter / 1024 / 1024),
    rssGrowthMb: Math.round(((rssAfter - rssBefore) / 1024 / 1024) * 10) / 10,
  })}\n`,
);
