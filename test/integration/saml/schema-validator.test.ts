import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { assertionXml, responseXml, signElement } from '../../../scripts/saml/saml-response.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { XmllintSchemaValidator } from '../../../src/adapters/saml/xmllint-schema-validator.js';
import { findProjectRoot } from '../../../src/bootstrap/project-root.js';
import { SamlBrowser, startSamlApp } from '../../support/saml-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';

const root = findProjectRoot();
const schemaDir = join(root, 'schemas', 'saml2');
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

  it('200 validations in a process of their own (1,000 in npm run bench): resident memory bounded, no listener added, nothing printed', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(root, 'test/support/validate-many.ts'), '200', SENTINEL],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code, stderr).to.equal(0);
    expect(stderr, 'stderr').to.equal('');
    const lines = stdout.trim().split('\n');
    expect(lines, 'stdout: one JSON line, nothing else').to.have.length(1);
    const result = JSON.parse(lines[0] ?? '{}') as Record<string, number>;
    expect(result.refused, 'every tenth document is schema-invalid').to.equal(20);
    expect(result.listenersAfter).to.equal(result.listenersBefore);
    expect(result.rssGrowthMb, `resident memory grew ${result.rssGrowthMb?.toFixed(1)} MB`).to.be.lessThan(20);
    expect(stdout).not.to.contain(SENTINEL);
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
