/**
 * Reading one identity provider out of a federation aggregate: time and memory.
 *
 *   npx tsx scripts/bench/federation-metadata.ts [megabytes=20]
 *
 * Writes a signed aggregate of about `megabytes` MB (thousands of entities shaped like a
 * research-and-education federation's, scripts/saml/federation-metadata.ts) to a temporary
 * file, then, in a fresh process each (so that no peak of the writing counts), reads it
 * the way Gatehouse does (`readIdentityProviderMetadata`: parse, verify the federation's
 * signature when a certificate is given, select the entity by IdpEntityId, read it) and
 * prints one JSON line per run: the time the read held its thread (in place: Gatehouse moves
 * documents above 256 KiB to a worker thread, where it costs the same), the process's peak
 * resident memory during it, and resident and heap memory after a garbage collection with
 * only the selected entity's values kept.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readIdentityProviderMetadata } from '../../src/adapters/saml/identity-provider-metadata.js';
import { readPemCertificate } from '../../src/adapters/saml/signing-certificate.js';
import { aggregateXml, signMetadata } from '../saml/federation-metadata.js';
import { makeSigningCredential } from '../saml/signing-credential.js';

const MEMBER = 'https://idp.member-university.example.edu/idp/shibboleth';
const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

if (process.argv[2] === '--read') {
  const [, , , file, certificateFile] = process.argv;
  const gc = globalThis.gc;
  if (!gc || !file) throw new Error('run through the script itself (node --expose-gc)');
  const xml = readFileSync(file, 'utf8');
  const signingCertificate = certificateFile ? readPemCertificate(readFileSync(certificateFile, 'utf8')) : undefined;
  gc();
  const before = process.memoryUsage();
  const started = performance.now();
  const metadata = readIdentityProviderMetadata(xml, Date.now(), {
    idpEntityId: MEMBER,
    signingCertificate,
    signsAuthnRequests: false,
  });
  const blockedMs = Math.round(performance.now() - started);
  const peakRssMiB = mib(process.resourceUsage().maxRSS * 1024);
  gc();
  const after = process.memoryUsage();
  if (metadata.entityId !== MEMBER) throw new Error('selected the wrong entity');
  console.log(
    JSON.stringify({
      signed: signingCertificate !== undefined,
      documentMiB: mib(Buffer.byteLength(xml)),
      blockedMs,
      rssBeforeMiB: mib(before.rss),
      peakRssMiB,
      rssAfterMiB: mib(after.rss),
      heapBeforeMiB: mib(before.heapUsed),
      heapAfterMiB: mib(after.heapUsed),
    }),
  );
} else {
  const megabytes = Number(process.argv[2] ?? 20);
  const federation = makeSigningCredential({ commonName: 'metadata-signer.federation.example' });
  const filler = makeSigningCredential({ commonName: 'member.example.org' }).certificateBody;
  const member = makeSigningCredential({ commonName: 'idp.member-university.example.edu' });
  // About 4.5 KB per entity: measured once, then scaled to the size asked for.
  const probe = aggregateXml({ members: [], count: 100, fillerCertificate: filler }).length / 100;
  const count = Math.round((megabytes * 1024 * 1024) / probe);
  const startedWriting = performance.now();
  const signed = signMetadata(
    aggregateXml({
      members: [
        { entityId: MEMBER, ssoUrl: `${new URL(MEMBER).origin}/sso`, certificateBodies: [member.certificateBody] },
      ],
      count,
      fillerCertificate: filler,
    }),
    federation,
  );
  const writtenMs = Math.round(performance.now() - startedWriting);
  const folder = mkdtempSync(join(tmpdir(), 'gatehouse-federation-'));
  try {
    const file = join(folder, 'aggregate.xml');
    const certificateFile = join(folder, 'federation.pem');
    writeFileSync(file, signed);
    writeFileSync(certificateFile, federation.certificatePem);
    console.error(
      `${count + 1} entities, ${mib(Buffer.byteLength(signed))} MiB, written and signed in ${writtenMs} ms`,
    );
    const self = fileURLToPath(import.meta.url);
    for (const args of [[file], [file, certificateFile]]) {
      const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', self, '--read', ...args], {
        encoding: 'utf8',
      });
      if (run.status !== 0) throw new Error(run.stderr);
      process.stdout.write(run.stdout);
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
