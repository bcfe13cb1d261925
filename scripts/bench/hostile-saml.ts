/**
 * What anonymous, hostile SAML requests cost Gatehouse before any signature is checked.
 *
 *   npm run build && npx tsx scripts/bench/hostile-saml.ts [seconds=5] [scenario ...]
 *
 * Each scenario starts the compiled Gatehouse (dist/, or BENCH_DIST for another build: a
 * before/after comparison) as a server process of its own on the server core, in the
 * production posture (rows.ts: behind its trusted TLS proxy, templates cached), with Saml2
 * enabled against an identity provider's metadata served over https from this process, then sends
 * one hostile request over and over from 4 client loops for `seconds` (this process, on
 * the load core), while a fifth loop asks `/health/live` every 10 ms. It prints, per
 * scenario: the answers' statuses, the time per request (median and slowest, as the
 * client saw it), the server's CPU per request (all its threads, from /proc), and the
 * longest and median wait for `/health/live` meanwhile: a wait far above a millisecond is
 * the event loop held by the hostile requests, which every other user of the instance
 * waits out too. It writes bench-results/hostile-saml.json; with BENCH_PROFILE=1, a
 * .cpuprofile per scenario under bench-results/profiles/hostile-saml/ (for
 * scripts/bench/summarize-profile.ts). The method and the results:
 * docs/performance.md, Hostile SAML requests.
 *
 * Scenarios (all anonymous; none carries a signature the metadata vouches for):
 * - `logout-empty`: GET at the single logout path with no message, refused at once: the
 *   cost of any refusal page, the floor the others are read against;
 * - `logout-unsigned`: GET at the single logout path, an unsigned `SAMLRequest` of about
 *   700 bytes that inflates to 256 KiB of empty elements under a LogoutRequest root;
 * - `logout-wrong-key`: the same, its query signed by a key the metadata does not list;
 * - `acs-512k-on` / `acs-512k-off`: POST to the ACS of a form just under 512 KiB, a
 *   `SAMLResponse` of empty elements under a Response root, re-posted as from Gatehouse's
 *   own page (`gatehouse_resent`), with `AllowIdpInitiated` on and off;
 * - `acs-128k-on`: 128 KiB of XML holding as much markup as the ACS bound lets through
 *   (8,000 elements, text around them), `AllowIdpInitiated` on;
 * - `metadata-failing`: the identity provider's metadata a 3 MB federation aggregate whose
 *   signature does not verify (MetadataSigningCertificate names another key), every load
 *   of it refused; the clients alternate an unsolicited-looking response at the ACS and a
 *   GET at the logout path. Also counts the metadata fetches.
 */
import { sign } from 'node:crypto';
import { writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { identityProviderMetadataXml } from '../saml/authn-request.js';
import { aggregateXml, signMetadata } from '../saml/federation-metadata.js';
import { RSA_SHA256_URI } from '../saml/logout-messages.js';
import { SAML_ASSERTION, SAML_PROTOCOL } from '../saml/saml-response.js';
import { makeSigningCredential } from '../saml/signing-credential.js';
import { projectRoot } from './dist-modules.js';
import { productionEnv } from './rows.js';
import { cpuSecondsOf, pinSelfToLoadCore, spawnNode, stop, waitForLine } from './processes.js';

const seconds = Number(process.argv[2] ?? 5);
const only = process.argv.slice(3);
const CLIENT_LOOPS = 4;
const PROBE_EVERY_MS = 10;
const SAML = 'ProjectTemplate__Authentication__Providers__Saml2__';
const resultsDir = join(projectRoot, 'bench-results');
/** The production posture's trusted TLS proxy (rows.ts): the requests say they arrived over https. */
const behindProxy = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' };

const idpKey = makeSigningCredential({ commonName: 'idp.bench.example' });
const spKey = makeSigningCredential({ commonName: 'sp.bench.example' });
const stranger = makeSigningCredential({ commonName: 'stranger.bench.example' });
const federation = makeSigningCredential({ commonName: 'federation.bench.example' });

/** The identity provider's metadata, as the current scenario wants it; fetches counted. */
const metadataServer = { document: '', fetches: 0 };
// Over https, as production requires of MetadataUrl: the server trusts this certificate alone (NODE_EXTRA_CA_CERTS).
const tls = makeSigningCredential({ commonName: '127.0.0.1', altNames: ['127.0.0.1'] });
mkdirSync(resultsDir, { recursive: true });
const trustedCertificate = join(resultsDir, 'hostile-saml-metadata-ca.pem');
writeFileSync(trustedCertificate, tls.certificatePem);
const server = createServer({ key: tls.privateKeyPem, cert: tls.certificatePem }, (_request, response) => {
  metadataServer.fetches += 1;
  response.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(metadataServer.document);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const idpOrigin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
const idpEntityId = `${idpOrigin}/metadata`;
const ownMetadata = identityProviderMetadataXml(idpEntityId, `${idpOrigin}/sso`, [idpKey.certificateBody], {
  singleLogoutUrl: `${idpOrigin}/slo`,
});

/** A SAML root holding `count` empty elements, then `filler` text, closed. */
function emptyElements(root: 'Response' | 'LogoutRequest', count: number, filler = 0): string {
  return (
    `<samlp:${root} xmlns:samlp="${SAML_PROTOCOL}" ID="_bench" Version="2.0" IssueInstant="2026-01-01T00:00:00Z">` +
    '<a/>'.repeat(count) +
    'x'.repeat(filler) +
    `</samlp:${root}>`
  );
}

/** The largest such document within `bytes`. */
const emptyElementsWithin = (root: 'Response' | 'LogoutRequest', bytes: number) =>
  emptyElements(root, Math.floor((bytes - emptyElements(root, 0).length) / 4));

/** SAML Bindings 3.4.4.1: `SAMLRequest=<deflated XML>`, signed with `key` when given. */
function redirectQuery(xml: string, key?: { privateKeyPem: string }): string {
  const query = `SAMLRequest=${encodeURIComponent(deflateRawSync(Buffer.from(xml)).toString('base64'))}`;
  if (!key) return query;
  const signed = `${query}&SigAlg=${encodeURIComponent(RSA_SHA256_URI)}`;
  return `${signed}&Signature=${encodeURIComponent(sign('sha256', Buffer.from(signed), key.privateKeyPem).toString('base64'))}`;
}

const postForm = (xml: string) =>
  new URLSearchParams({ SAMLResponse: Buffer.from(xml).toString('base64'), gatehouse_resent: '1' }).toString();

interface Scenario {
  key: string;
  name: string;
  env: Record<string, string>;
  metadata: () => string;
  /** The request each client loop sends, by its turn. */
  request: (turn: number) => { path: string; method: 'GET' | 'POST'; body?: string };
}

const LOGOUT_BOMB = emptyElementsWithin('LogoutRequest', 256 * 1024);
const ACS_512K = (() => {
  // Just under the 512 KiB body limit Gatehouse had before the ACS bound, once form-encoded.
  let count = Math.floor((512 * 1024 * 3) / 4 / 4) - 64;
  while (postForm(emptyElements('Response', count)).length > 512 * 1024 - 64) count -= 256;
  return postForm(emptyElements('Response', count));
})();
const ACS_128K = postForm(emptyElements('Response', 8000, 128 * 1024 - emptyElements('Response', 8000).length));
const SHAPED_RESPONSE = postForm(
  `<samlp:Response xmlns:samlp="${SAML_PROTOCOL}" ID="_bench" Version="2.0" IssueInstant="2026-01-01T00:00:00Z">` +
    `<saml:Assertion xmlns:saml="${SAML_ASSERTION}" ID="_bench-assertion" Version="2.0" IssueInstant="2026-01-01T00:00:00Z"/>` +
    `</samlp:Response>`,
);
const failingAggregate = () =>
  signMetadata(
    aggregateXml({
      members: [{ entityId: idpEntityId, ssoUrl: `${idpOrigin}/sso`, certificateBodies: [idpKey.certificateBody] }],
      count: 700,
      fillerCertificate: stranger.certificateBody,
    }),
    stranger,
  );

const singleLogout = {
  [`${SAML}SingleLogout`]: 'true',
  [`${SAML}SigningCertificate`]: spKey.certificatePem,
  [`${SAML}SigningKey`]: spKey.privateKeyPem,
};
const idpInitiated = (on: boolean) => ({ [`${SAML}AllowIdpInitiated`]: String(on) });

const scenarios: Scenario[] = [
  {
    // The floor: a refusal page for a request that carries nothing to read.
    key: 'logout-empty',
    name: 'logout, GET without a message (the cost of a refusal page)',
    env: singleLogout,
    metadata: () => ownMetadata,
    request: () => ({ method: 'GET', path: '/Saml2/Logout' }),
  },
  {
    key: 'logout-unsigned',
    name: 'logout, HTTP-Redirect, unsigned, inflating to 256 KiB',
    env: singleLogout,
    metadata: () => ownMetadata,
    request: () => ({ method: 'GET', path: `/Saml2/Logout?${redirectQuery(LOGOUT_BOMB)}` }),
  },
  {
    key: 'logout-wrong-key',
    name: 'logout, HTTP-Redirect, signed by another key, inflating to 256 KiB',
    env: singleLogout,
    metadata: () => ownMetadata,
    request: () => ({ method: 'GET', path: `/Saml2/Logout?${redirectQuery(LOGOUT_BOMB, stranger)}` }),
  },
  ...[true, false].map((on): Scenario => ({
    key: `acs-512k-${on ? 'on' : 'off'}`,
    name: `ACS, a 512 KiB form of empty elements, AllowIdpInitiated ${on ? 'on' : 'off'}`,
    env: idpInitiated(on),
    metadata: () => ownMetadata,
    request: () => ({ method: 'POST', path: '/Saml2/Acs', body: ACS_512K }),
  })),
  {
    key: 'acs-128k-on',
    name: 'ACS, 128 KiB of XML with 8,000 empty elements, AllowIdpInitiated on',
    env: idpInitiated(true),
    metadata: () => ownMetadata,
    request: () => ({ method: 'POST', path: '/Saml2/Acs', body: ACS_128K }),
  },
  {
    key: 'metadata-failing',
    name: 'ACS and logout while a 3 MB signed aggregate keeps failing to verify',
    env: {
      ...idpInitiated(true),
      ...singleLogout,
      [`${SAML}IdpEntityId`]: idpEntityId,
      [`${SAML}MetadataSigningCertificate`]: federation.certificatePem,
      [`${SAML}MetadataMaxBytes`]: String(8 * 1024 * 1024),
    },
    metadata: failingAggregate,
    request: (turn) =>
      turn % 2 === 0
        ? { method: 'POST', path: '/Saml2/Acs', body: SHAPED_RESPONSE }
        : { method: 'GET', path: `/Saml2/Logout?${redirectQuery(LOGOUT_BOMB)}` },
  },
];

interface Measured {
  key: string;
  name: string;
  requests: number;
  statuses: Record<string, number>;
  medianMs: number;
  slowestMs: number;
  serverCpuMsPerRequest: number | undefined;
  liveMedianMs: number;
  liveLongestMs: number;
  metadataFetches: number;
}

const percentile = (values: number[], share: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
};
const round1 = (value: number) => Math.round(value * 10) / 10;

async function run(scenario: Scenario): Promise<Measured> {
  metadataServer.document = scenario.metadata();
  metadataServer.fetches = 0;
  const profile =
    process.env.BENCH_PROFILE === '1'
      ? ['--cpu-prof', `--cpu-prof-dir=${join(resultsDir, 'profiles', 'hostile-saml', scenario.key)}`]
      : [];
  const child = spawnNode([...profile, '--import', 'tsx', 'scripts/bench/gatehouse-server.ts'], {
    ...productionEnv,
    NODE_EXTRA_CA_CERTS: trustedCertificate,
    ProjectTemplate__Session__Store: 'Memory',
    ProjectTemplate__Authentication__HttpTimeoutSeconds: '30',
    [`${SAML}Enabled`]: 'true',
    [`${SAML}EntityId`]: 'https://gatehouse.bench.example/saml',
    [`${SAML}MetadataUrl`]: idpEntityId,
    ...scenario.env,
  });
  try {
    const [, port] = await waitForLine(child, /^READY (\d+)/, 30_000);
    const origin = `http://127.0.0.1:${port}`;
    const send = async (turn: number) => {
      const { method, path, body } = scenario.request(turn);
      const response = await fetch(`${origin}${path}`, {
        method,
        redirect: 'manual',
        headers: {
          ...behindProxy,
          accept: 'text/html',
          ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(body ? { body } : {}),
      });
      await response.arrayBuffer();
      return response.status;
    };
    await send(0); // warm: the metadata loaded (or refused), the code paths compiled
    const times: number[] = [];
    const statuses: Record<string, number> = {};
    const live: number[] = [];
    const deadline = performance.now() + seconds * 1000;
    const cpuBefore = cpuSecondsOf(child.pid);
    const fetchesBefore = metadataServer.fetches;
    const client = async (loop: number) => {
      for (let turn = loop; performance.now() < deadline; turn += CLIENT_LOOPS) {
        const started = performance.now();
        const status = await send(turn);
        times.push(performance.now() - started);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    };
    const probe = async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        await (await fetch(`${origin}/health/live`, { headers: behindProxy })).arrayBuffer();
        live.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
      }
    };
    await Promise.all([...Array.from({ length: CLIENT_LOOPS }, (_, loop) => client(loop)), probe()]);
    const cpuAfter = cpuSecondsOf(child.pid);
    return {
      key: scenario.key,
      name: scenario.name,
      requests: times.length,
      statuses,
      medianMs: round1(percentile(times, 0.5)),
      slowestMs: round1(Math.max(...times)),
      serverCpuMsPerRequest:
        cpuBefore === undefined || cpuAfter === undefined
          ? undefined
          : round1(((cpuAfter - cpuBefore) * 1000) / Math.max(1, times.length)),
      liveMedianMs: round1(percentile(live, 0.5)),
      liveLongestMs: round1(Math.max(...live)),
      metadataFetches: metadataServer.fetches - fetchesBefore,
    };
  } finally {
    await stop(child);
  }
}

const pinned = pinSelfToLoadCore();
console.log(
  `Hostile SAML requests against ${process.env.BENCH_DIST ?? 'dist/'}: ${CLIENT_LOOPS} client loops for ${seconds} s each, /health/live every ${PROBE_EVERY_MS} ms${pinned ? '; server on core 0, clients on core 1' : ''}`,
);
const results: Measured[] = [];
for (const scenario of scenarios.filter((candidate) => only.length === 0 || only.includes(candidate.key))) {
  process.stdout.write(`${scenario.name} ...`);
  const measured = await run(scenario);
  results.push(measured);
  const statuses = Object.entries(measured.statuses)
    .map(([status, count]) => `${count} x ${status}`)
    .join(', ');
  process.stdout.write(
    ` ${statuses}; median ${measured.medianMs} ms, slowest ${measured.slowestMs} ms; server CPU ${measured.serverCpuMsPerRequest ?? 'n/a'} ms/request; /health/live median ${measured.liveMedianMs} ms, longest ${measured.liveLongestMs} ms; metadata fetched ${measured.metadataFetches} times\n`,
  );
}
server.close();
writeFileSync(
  join(resultsDir, 'hostile-saml.json'),
  `${JSON.stringify({ build: process.env.BENCH_DIST ?? 'dist/', seconds, results }, null, 2)}\n`,
);
