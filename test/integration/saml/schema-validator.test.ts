import { expect } from 'chai';
import { join } from 'node:path';
import { assertionXml, responseXml, signElement } from '../../../scripts/saml/saml-response.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { XmllintSchemaValidator } from '../../../src/adapters/saml/xmllint-schema-validator.js';
import { findProjectRoot } from '../../../src/bootstrap/project-root.js';
import { SamlBrowser, startSamlApp } from '../../support/saml-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';

const schemaDir = join(findProjectRoot(), 'schemas', 'saml2');
const SENTINEL = 'SENTINEL-saml-attribute-7f3a';

function signedResponse(index: number): string {
  const credential = signedResponse.credential;
  const assertion = signElement(
    assertionXml({
      issuer: 'https://idp.example/metadata',
      nameId: `user-${index}@example.com`,
      audiences: ['https://sp.example/saml'],
      recipient: 'https://sp.example/Saml2/Acs',
      inResponseTo: `_request-${index}`,
      attributes: { 'urn:oid:2.5.4.42': [SENTINEL], 'http://schemas.xmlsoap.org/claims/Group': ['a', 'b', 'c'] },
    }),
    'Assertion',
    { credential },
  );
  return responseXml(
    {
      issuer: 'https://idp.example/metadata',
      destination: 'https://sp.example/Saml2/Acs',
      inResponseTo: `_request-${index}`,
    },
    assertion,
  );
}
signedResponse.credential = makeSigningCredential();

/** Everything written to stdout, stderr and the console while `run` runs. */
async function captureOutput(run: () => Promise<void>): Promise<string> {
  const captured: string[] = [];
  const streams = [process.stdout, process.stderr] as const;
  const writes = streams.map((stream) => stream.write.bind(stream));
  for (const stream of streams) {
    stream.write = ((chunk: unknown) => {
      captured.push(String(chunk));
      return true;
    }) as typeof stream.write;
  }
  try {
    await run();
  } finally {
    streams.forEach((stream, i) => (stream.write = writes[i] as typeof stream.write));
  }
  return captured.join('');
}

describe('SAML schema validation with xmllint (the validator samlify is given)', function () {
  this.timeout(60_000);
  const validator = new XmllintSchemaValidator({ schemaDir });

  it('accepts a schema-valid response and refuses an invalid one with idp.schema_invalid', async () => {
    expect(await validator.validate(signedResponse(1))).to.equal('valid');
    const invalid = signedResponse(2).replace('<samlp:Status>', '<samlp:Unexpected/><samlp:Status>');
    const refusal = await validator.validate(invalid).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).to.have.property('code', 'idp.schema_invalid');
  });

  it('is unavailable (idp.validator_unavailable), never a pass, when xmllint cannot run', async () => {
    const missing = new XmllintSchemaValidator({ schemaDir, executable: '/nonexistent/xmllint' });
    const refusal = await missing.validate(signedResponse(3)).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).to.have.property('code', 'idp.validator_unavailable');
  });

  it('200 validations in one process (1,000 in npm run bench): resident memory bounded, no listener added, nothing printed', async () => {
    const documents = Array.from({ length: 20 }, (_, i) => signedResponse(i));
    const invalid = documents[0]?.replace('<samlp:Status>', `<samlp:${SENTINEL}/><samlp:Status>`) ?? '';
    const listeners = () => process.listenerCount('uncaughtException') + process.listenerCount('unhandledRejection');
    const listenersBefore = listeners();
    for (let i = 0; i < 40; i += 1) await validator.validate(documents[i % 20] ?? '');
    const rssBefore = process.memoryUsage().rss;
    let refused = 0;
    const output = await captureOutput(async () => {
      for (let batch = 0; batch < 50; batch += 1) {
        await Promise.all(
          [0, 1, 2, 3].map((k) =>
            validator
              .validate(k === 0 && batch % 10 === 0 ? invalid : (documents[(batch * 4 + k) % 20] ?? ''))
              .catch(() => {
                refused += 1;
              }),
          ),
        );
      }
    });
    const growthMb = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
    expect(refused, 'the invalid documents among them').to.equal(5);
    expect(growthMb, `resident memory grew ${growthMb.toFixed(1)} MB`).to.be.lessThan(20);
    expect(listeners()).to.equal(listenersBefore);
    expect(output).to.equal('');
  });

  it('through the app: a response the schema refuses (in its unsigned part) is idp.schema_invalid, and nothing is printed', async () => {
    const idp = await SamlTestIdentityProvider.start();
    const app = await startSamlApp(idp);
    try {
      let status = 0;
      let body = '';
      const output = await captureOutput(async () => {
        const response = await new SamlBrowser().signIn(app, idp, {
          sign: 'assertion',
          tamper: (xml) => xml.replace('<samlp:Status>', '<samlp:Unexpected/><samlp:Status>'),
        });
        status = response.status;
        body = await response.text();
      });
      expect(status, body.slice(0, 300)).to.equal(400);
      expect(body).to.contain('<code>idp.schema_invalid</code>');
      expect(output).to.equal('');
    } finally {
      await app.close();
      await idp.close();
    }
  });
});
