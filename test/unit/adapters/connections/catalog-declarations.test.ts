import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { catalogDeclarations } from '../../../../src/adapters/connections/catalog-declarations.js';
import { sectionReader, type SectionReader } from '../../../../src/adapters/connections/connection-section.js';
import { settingsSchema } from '../../../../src/adapters/config/settings-schema.js';
import { SecretSealer } from '../../../../src/adapters/secrets/secret-sealer.js';
import type { CatalogEntry, DomainProof } from '../../../../src/application/ports/connection-catalog.js';
import type { ConnectionDeclaration } from '../../../../src/domain/connections/connection.js';
import { builtInProviders } from '../../../../src/bootstrap/provider-catalogue.js';

/** A client secret that must never appear in a problem. */
const SECRET = 'SENTINEL-catalog-declarations-secret-7f3a';
const ORIGIN = 'database:acme';
const T0 = Date.UTC(2026, 0, 1);

const sealer = new SecretSealer([randomBytes(32).toString('base64')]);
const otherSealer = new SecretSealer([randomBytes(32).toString('base64')]);

function entry(keys: Record<string, unknown>, domains: DomainProof[] = []): CatalogEntry {
  return {
    name: 'Acme',
    keys: {
      Protocol: 'OpenIdConnect',
      Organization: 'acme',
      Domains: domains.map((proof) => proof.domain),
      Authority: 'https://login.acme.example',
      ClientId: 'acme-client',
      ...keys,
    },
    domains,
    version: 1,
    updatedAt: T0,
  };
}

/** Every text a declaration's problems hold, to look for a secret in. */
const problemText = (declaration: ConnectionDeclaration) => JSON.stringify(declaration.problems);

describe('catalog declarations: an entry as the registry reads it', () => {
  let reader: SectionReader;
  before(async () => {
    reader = sectionReader(await settingsSchema(builtInProviders));
  });

  it("opens a secret sealed for the connection and its key into the declaration's section", async () => {
    const sealed = sealer.seal(SECRET, { connection: 'acme', field: 'ClientSecret' });
    const declaration = await catalogDeclarations(reader, sealer)(entry({ ClientSecret: sealed }), ORIGIN);
    expect(declaration.problems).to.deep.equal([]);
    expect(declaration.section.ClientSecret).to.equal(SECRET);
    expect(declaration).to.include({ name: 'Acme', origin: ORIGIN });
  });

  it('attaches the domains proved through DNS, and only those', async () => {
    const declaration = await catalogDeclarations(reader, sealer)(
      entry({}, [
        { domain: 'acme.com', token: 'k3Jq9VxP2mW7tR4sYb8nLc', verifiedAt: T0, misses: 0 },
        { domain: 'acme.io', token: 'Zz9Yy8Xx7Ww6Vv5Uu4Tt3S', checkedAt: T0, misses: 0 },
        { domain: '*.acme.com', token: '', misses: 0 },
      ]),
      ORIGIN,
    );
    expect(declaration.verifiedDomains).to.deep.equal(['acme.com']);
    const none = await catalogDeclarations(reader, sealer)(
      entry({}, [{ domain: 'acme.io', token: 'Zz9Yy8Xx7Ww6Vv5Uu4Tt3S', misses: 0 }]),
      ORIGIN,
    );
    // An entry with nothing proved still says so: an empty list, never "the operator's word".
    expect(none.verifiedDomains).to.deep.equal([]);
  });

  const refused: ReadonlyArray<[label: string, value: () => string]> = [
    ['sealed for another connection', () => sealer.seal(SECRET, { connection: 'globex', field: 'ClientSecret' })],
    ['sealed for another key', () => sealer.seal(SECRET, { connection: 'acme', field: 'ClientKey' })],
    [
      'sealed under a key the deployment does not list',
      () => otherSealer.seal(SECRET, { connection: 'acme', field: 'ClientSecret' }),
    ],
    ['written in the clear by hand', () => SECRET],
    [
      'altered',
      () => {
        const sealed = sealer.seal(SECRET, { connection: 'acme', field: 'ClientSecret' });
        return `${sealed.slice(0, -2)}${sealed.endsWith('AA') ? 'BB' : 'AA'}`;
      },
    ],
  ];
  for (const [label, value] of refused) {
    it(`refuses a secret ${label}, naming its key and never quoting it`, async () => {
      const written = value();
      const declaration = await catalogDeclarations(reader, sealer)(entry({ ClientSecret: written }), ORIGIN);
      expect(declaration.problems.map((problem) => [problem.key, problem.severity])).to.deep.equal([
        [`${ORIGIN}:ClientSecret`, 'error'],
      ]);
      expect(declaration.problems[0]?.message).to.include('Administration:EncryptionKeys');
      expect(declaration.section).to.not.have.property('ClientSecret');
      expect(problemText(declaration)).to.not.include(SECRET);
      expect(problemText(declaration)).to.not.include(written);
    });
  }

  it("refuses a value copied from another connection's entry, which opens there", async () => {
    const sealed = sealer.seal(SECRET, { connection: 'acme', field: 'ClientSecret' });
    const copied = { ...entry({ ClientSecret: sealed }), name: 'Globex' };
    const declaration = await catalogDeclarations(reader, sealer)(copied, 'database:globex');
    expect(declaration.problems.map((problem) => problem.key)).to.deep.equal(['database:globex:ClientSecret']);
    expect(declaration.section).to.not.have.property('ClientSecret');
  });

  it('refuses a sealed secret when the deployment has no key to open it, naming the key', async () => {
    const sealed = sealer.seal(SECRET, { connection: 'acme', field: 'ClientSecret' });
    const declaration = await catalogDeclarations(reader, undefined)(entry({ ClientSecret: sealed }), ORIGIN);
    expect(declaration.problems.map((problem) => problem.key)).to.deep.equal([`${ORIGIN}:ClientSecret`]);
    expect(declaration.problems[0]?.message).to.match(/lists no key/);
    expect(declaration.section).to.not.have.property('ClientSecret');
  });

  it('refuses a secret written in the clear by hand under another letter case of its key', async () => {
    const declaration = await catalogDeclarations(reader, sealer)(entry({ clientsecret: SECRET }), ORIGIN);
    expect(declaration.problems.map((problem) => problem.severity)).to.include('error');
    expect(declaration.section.ClientSecret).to.not.equal(SECRET);
    expect(problemText(declaration)).to.not.include(SECRET);
  });

  it('opens a sealed secret whose key was respelled in another letter case (keys compare so everywhere)', async () => {
    const sealed = sealer.seal(SECRET, { connection: 'acme', field: 'ClientSecret' });
    const declaration = await catalogDeclarations(reader, sealer)(entry({ clientSecret: sealed }), ORIGIN);
    expect(declaration.problems).to.deep.equal([]);
    expect(declaration.section.ClientSecret).to.equal(SECRET);
  });

  it('refuses a secret written by hand as a number (the schema would make it text)', async () => {
    const declaration = await catalogDeclarations(reader, sealer)(entry({ ClientSecret: 12345678901234 }), ORIGIN);
    expect(declaration.problems.map((problem) => problem.key)).to.deep.equal([`${ORIGIN}:ClientSecret`]);
    expect(declaration.section).to.not.have.property('ClientSecret');
    expect(problemText(declaration)).to.not.include('12345678901234');
  });

  it("keeps the reader's own problems beside a secret's, and stores no secret it could not open", async () => {
    const declaration = await catalogDeclarations(reader, sealer)(
      entry({ ClientSecret: SECRET, Colour: 'blue' }),
      ORIGIN,
    );
    expect(declaration.problems.map((problem) => problem.key).sort()).to.deep.equal(
      [`${ORIGIN}:ClientSecret`, `${ORIGIN}:Colour`].sort(),
    );
    expect(problemText(declaration)).to.not.include(SECRET);
  });

  it('passes an empty secret through as no secret, needing no key', async () => {
    const declaration = await catalogDeclarations(reader, undefined)(entry({ ClientSecret: '' }), ORIGIN);
    expect(declaration.problems).to.deep.equal([]);
    expect(declaration.section.ClientSecret ?? '').to.equal('');
  });
});
