/**
 * Run as its own process by the schema-validator test: validates N signed responses (every
 * tenth of them schema-invalid) with the xmllint validator, four at a time, then prints one
 * JSON line with the resident-memory growth, the process-wide listeners before and after,
 * and the count refused. Anything else the process prints (a library writing to the
 * console, a child process inheriting stdout) is what the test catches.
 */
import { join } from 'node:path';
import { assertionXml, responseXml, signElement } from '../../scripts/saml/saml-response.js';
import { makeSigningCredential } from '../../scripts/saml/signing-credential.js';
import { XmllintSchemaValidator } from '../../src/adapters/saml/xmllint-schema-validator.js';
import { findProjectRoot } from '../../src/bootstrap/project-root.js';

const count = Number(process.argv[2] ?? 200);
const sentinel = process.argv[3] ?? 'SENTINEL';
const credential = makeSigningCredential();
const documents = Array.from({ length: 20 }, (_, i) =>
  responseXml(
    { issuer: 'https://idp.example', destination: 'https://sp.example/acs', inResponseTo: `_r${i}` },
    signElement(
      assertionXml({
        issuer: 'https://idp.example',
        nameId: `${sentinel}-${i}`,
        audiences: ['https://sp.example'],
        recipient: 'https://sp.example/acs',
        inResponseTo: `_r${i}`,
        attributes: { 'urn:oid:2.5.4.42': [sentinel], 'http://schemas.xmlsoap.org/claims/Group': ['a', 'b', 'c'] },
      }),
      'Assertion',
      { credential },
    ),
  ),
);
const invalid = (documents[0] ?? '').replace('<samlp:Status>', `<samlp:${sentinel}/><samlp:Status>`);
const validator = new XmllintSchemaValidator({ schemaDir: join(findProjectRoot(), 'schemas', 'saml2') });
const listeners = () => process.listenerCount('uncaughtException') + process.listenerCount('unhandledRejection');

const listenersBefore = listeners();
for (let i = 0; i < 20; i += 1) await validator.validate(documents[i] ?? '');
const rssBefore = process.memoryUsage().rss;
let refused = 0;
for (let batch = 0; batch < count / 4; batch += 1) {
  await Promise.all(
    [0, 1, 2, 3].map((k) => {
      const index = batch * 4 + k;
      const xml = index % 10 === 0 ? invalid : (documents[index % 20] ?? '');
      return validator.validate(xml).catch(() => {
        refused += 1;
      });
    }),
  );
}
const rssGrowthMb = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
process.stdout.write(`${JSON.stringify({ rssGrowthMb, listenersBefore, listenersAfter: listeners(), refused })}\n`);
