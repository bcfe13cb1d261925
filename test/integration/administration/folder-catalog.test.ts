import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { catalogDeclarations } from '../../../src/adapters/connections/catalog-declarations.js';
import { fileOfEntry } from '../../../src/adapters/connections/catalog-file.js';
import { sectionReader, type SectionReader } from '../../../src/adapters/connections/connection-section.js';
import { FolderConnectionCatalog } from '../../../src/adapters/connections/folder-connection-catalog.js';
import { FolderConnections } from '../../../src/adapters/connections/folder-connections.js';
import { settingsSchema } from '../../../src/adapters/config/settings-schema.js';
import { SecretSealer } from '../../../src/adapters/secrets/secret-sealer.js';
import type { CatalogWrite, DomainProof } from '../../../src/application/ports/connection-catalog.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import { readConnection } from '../../../src/domain/connections/read-connection.js';
import { CONNECTION_RULES } from '../../support/connection-declarations.js';
import { ConnectionFolder } from '../../support/connection-folder.js';

const T0 = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;
const TOKEN = 'k3Jq9VxP2mW7tR4sYb8nLc';
const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** A proof of `domain`, verified at `verifiedAt` when given. */
const proof = (domain: string, extra: Partial<DomainProof> = {}): DomainProof => ({
  domain,
  token: TOKEN,
  misses: 0,
  ...extra,
});

/**
 * FolderConnectionCatalog over a real temporary folder: the files it writes (atomically,
 * with the API's mark), the versions it checks, the operator's files it leaves alone, and,
 * through FolderConnections, what the registry reads of them.
 */
describe('FolderConnectionCatalog: the folder as the administration API writes it', function () {
  this.timeout(60_000);
  let folder: ConnectionFolder;
  let catalog: FolderConnectionCatalog;
  let reader: SectionReader;
  let sealer: SecretSealer;
  let directory: FolderConnections;

  /** A connection of `organization` with `domains`, proofs `proofs` (unverified ones by default). */
  const write = (name: string, organization: string, domains: string[], proofs?: DomainProof[]): CatalogWrite => ({
    name,
    keys: {
      Protocol: 'OpenIdConnect',
      Organization: organization,
      Domains: domains,
      Authority: `https://login.${organization}.example`,
      ClientId: `${organization}-client`,
      ClientSecret: sealer.seal(`${organization}-secret`, { connection: name.toLowerCase(), field: 'ClientSecret' }),
    },
    domains: proofs ?? domains.map((domain) => proof(domain)),
  });
  const written = async (name: string, organization: string, domains: string[], proofs?: DomainProof[]) => {
    const outcome = await catalog.put(write(name, organization, domains, proofs), undefined, T0);
    if (outcome.kind !== 'written') throw new Error(`${name} was not written`);
    return outcome.entry;
  };
  const files = async () => (await readdir(folder.path)).sort();

  before(async () => {
    reader = sectionReader(await settingsSchema(builtInProviders));
    sealer = new SecretSealer([randomBytes(32).toString('base64')]);
  });
  beforeEach(async () => {
    folder = await ConnectionFolder.create();
    directory = new FolderConnections(folder.path, reader, silent, 25, undefined, catalogDeclarations(reader, sealer));
    catalog = new FolderConnectionCatalog(folder.path, directory);
  });
  afterEach(async () => folder.dispose());

  describe('put', () => {
    it('creates <Name>.json with the API mark, readable by its owner only, and leaves no temporary file', async () => {
      const outcome = await catalog.put(write('Acme', 'acme', ['acme.com']), 0, T0);
      expect(outcome).to.deep.include({ kind: 'written', created: true });
      expect(outcome.kind === 'written' && outcome.entry).to.deep.include({ name: 'Acme', version: 1, updatedAt: T0 });
      expect(await files()).to.deep.equal(['Acme.json']);
      const raw = JSON.parse(await readFile(folder.fileOf('Acme'), 'utf8')) as Record<string, any>;
      expect(raw.Organization).to.equal('acme');
      expect(raw.$catalog).to.deep.include({ writtenBy: 'administration-api', version: 1 });
      expect((await stat(folder.fileOf('Acme'))).mode & 0o777).to.equal(0o600);
      expect(catalog.originOf('Acme')).to.equal(folder.fileOf('Acme'));
      expect(await catalog.get('ACME')).to.deep.include({ name: 'Acme', version: 1 });
    });

    it('replaces the file whole: a reader looking all the while never sees half of one', async () => {
      await written('Acme', 'acme', ['acme.com']);
      let writing = true;
      let reads = 0;
      const seen = new Set<number>();
      const reading = (async () => {
        while (writing) {
          const text = await readFile(folder.fileOf('Acme'), 'utf8');
          // Throws, failing the test, on a file read half-written (or truncated to nothing).
          const raw = JSON.parse(text) as { $catalog: { version: number } };
          seen.add(raw.$catalog.version);
          reads += 1;
        }
      })();
      try {
        for (let round = 0; round < 200; round += 1) {
          // Large and of changing size, so that a write takes long enough to be caught half-way.
          const filler = 'x'.repeat(64 * 1024 + ((round * 7919) % (256 * 1024)));
          const change = write('Acme', 'acme', ['acme.com']);
          const outcome = await catalog.put(
            { ...change, keys: { ...change.keys, DisplayName: filler } },
            undefined,
            T0,
          );
          expect(outcome.kind).to.equal('written');
        }
      } finally {
        writing = false;
        await reading;
      }
      expect(reads).to.be.greaterThan(50);
      expect(seen.size).to.be.greaterThan(10);
      expect(await files()).to.deep.equal(['Acme.json']);
      expect((await catalog.get('Acme'))?.version).to.equal(201);
    });

    it('writes at the version expected only, and says which version there is when not', async () => {
      expect((await catalog.put(write('Acme', 'acme', ['acme.com']), 0, T0)).kind).to.equal('written');
      // Create only: the name is taken now.
      expect(await catalog.put(write('Acme', 'acme', ['acme.com']), 0, T0)).to.deep.equal({
        kind: 'conflict',
        currentVersion: 1,
      });
      const second = await catalog.put(write('Acme', 'acme', ['acme.com', 'acme.io']), 1, T0 + DAY);
      expect(second).to.deep.include({ kind: 'written', created: false });
      expect(second.kind === 'written' && second.entry).to.deep.include({ version: 2, updatedAt: T0 + DAY });
      // Based on version 1, which is gone: nothing is written.
      expect(await catalog.put(write('Acme', 'acme', ['globex.com']), 1, T0)).to.deep.equal({
        kind: 'conflict',
        currentVersion: 2,
      });
      expect((await catalog.get('Acme'))?.keys.Domains).to.deep.equal(['acme.com', 'acme.io']);
      // Whatever is there (last writer wins).
      expect((await catalog.put(write('Acme', 'acme', ['acme.com']), undefined, T0)).kind).to.equal('written');
      expect((await catalog.get('Acme'))?.version).to.equal(3);
      // A version of a connection that does not exist.
      expect(await catalog.put(write('Globex', 'globex', ['globex.com']), 4, T0)).to.deep.equal({
        kind: 'conflict',
        currentVersion: undefined,
      });
      expect(await files()).to.deep.equal(['Acme.json']);
    });

    it('replaces the same file when the name comes in another letter case', async () => {
      await written('Acme', 'acme', ['acme.com']);
      const outcome = await catalog.put(write('ACME', 'acme', ['acme.com']), 1, T0);
      expect(outcome).to.deep.include({ kind: 'written', created: false });
      expect(await files()).to.deep.equal(['ACME.json']);
      expect(await catalog.get('acme')).to.deep.include({ name: 'ACME', version: 2 });
    });

    it('serializes the writes of one instance: of two writes at one version, one wins', async () => {
      await written('Acme', 'acme', ['acme.com']);
      const outcomes = await Promise.all([
        catalog.put(write('Acme', 'acme', ['acme.com', 'one.test']), 1, T0),
        catalog.put(write('Acme', 'acme', ['acme.com', 'two.test']), 1, T0),
      ]);
      expect(outcomes.map((outcome) => outcome.kind).sort()).to.deep.equal(['conflict', 'written']);
      expect((await catalog.get('Acme'))?.version).to.equal(2);
    });
  });

  describe("the operator's files", () => {
    const handWritten = {
      Protocol: 'OpenIdConnect',
      Organization: 'handmade',
      Domains: ['handmade.test'],
      Authority: 'https://login.handmade.example',
      ClientId: 'handmade-client',
      ClientSecret: 'handmade-secret',
    };

    it('neither overwrites nor removes a hand-written file, nor lists it as its own', async () => {
      await folder.write('Handmade', handWritten);
      const before = await readFile(folder.fileOf('Handmade'), 'utf8');
      for (const expected of [undefined, 0, 1]) {
        expect(await catalog.put(write('Handmade', 'handmade', ['handmade.test']), expected, T0)).to.deep.equal({
          kind: 'conflict',
          currentVersion: undefined,
        });
      }
      expect(await catalog.put(write('HANDMADE', 'handmade', ['handmade.test']), undefined, T0)).to.deep.include({
        kind: 'conflict',
      });
      expect(await catalog.remove('Handmade', undefined)).to.deep.equal({ kind: 'absent' });
      expect(await catalog.get('Handmade')).to.equal(undefined);
      expect((await catalog.list({ limit: 100 })).entries).to.deep.equal([]);
      expect(await readFile(folder.fileOf('Handmade'), 'utf8')).to.equal(before);
      expect(await files()).to.deep.equal(['Handmade.json']);
    });

    it("takes a file whose mark was broken by hand, or that is not JSON, for the operator's", async () => {
      const entry = await written('Acme', 'acme', ['acme.com']);
      const broken = JSON.parse(fileOfEntry(entry)) as Record<string, any>;
      broken.$catalog.version = 'seven';
      await writeFile(folder.fileOf('Acme'), JSON.stringify(broken));
      await folder.writeText('Broken.json', '{"Protocol": "OpenIdConnect",');
      for (const name of ['Acme', 'Broken']) {
        expect((await catalog.put(write(name, 'acme', ['acme.com']), undefined, T0)).kind, name).to.equal('conflict');
        expect(await catalog.remove(name, undefined), name).to.deep.equal({ kind: 'absent' });
      }
      expect(await files()).to.deep.equal(['Acme.json', 'Broken.json']);
    });
  });

  describe('remove', () => {
    it('removes at the version expected only', async () => {
      await written('Acme', 'acme', ['acme.com']);
      await written('Acme', 'acme', ['acme.com', 'acme.io']);
      expect(await catalog.remove('Acme', 1)).to.deep.equal({ kind: 'conflict', currentVersion: 2 });
      expect(await files()).to.deep.equal(['Acme.json']);
      expect(await catalog.remove('acme', 2)).to.deep.equal({ kind: 'removed' });
      expect(await files()).to.deep.equal([]);
      expect(await catalog.remove('Acme', undefined)).to.deep.equal({ kind: 'absent' });
    });
  });

  describe('reading', () => {
    beforeEach(async () => {
      await written('Charlie', 'acme', ['charlie.com']);
      await written('Acme', 'acme', ['acme.com']);
      await written('delta', 'delta', ['shared.com']);
      await written(
        'Beta',
        'beta',
        ['beta.com', 'shared.com'],
        [proof('beta.com'), proof('shared.com', { verifiedAt: T0 })],
      );
      await folder.write('Echo', { Protocol: 'OpenIdConnect', Organization: 'acme', Domains: ['echo.com'] });
    });
    const names = (entries: Array<{ name: string }>) => entries.map((entry) => entry.name);

    it('lists its own entries by name in any letter case, a page at a time', async () => {
      const first = await catalog.list({ limit: 2 });
      expect(names(first.entries)).to.deep.equal(['Acme', 'Beta']);
      expect(first.next).to.equal('beta');
      const second = await catalog.list({ limit: 2, after: first.next });
      expect(names(second.entries)).to.deep.equal(['Charlie', 'delta']);
      expect(second.next).to.equal(undefined);
      expect(names((await catalog.list({ limit: 100 })).entries)).to.deep.equal(['Acme', 'Beta', 'Charlie', 'delta']);
      expect(names((await catalog.list({ limit: 3, after: 'acme' })).entries)).to.deep.equal([
        'Beta',
        'Charlie',
        'delta',
      ]);
    });

    it('lists by organization and by domain', async () => {
      expect(names((await catalog.list({ limit: 100, organization: 'acme' })).entries)).to.deep.equal([
        'Acme',
        'Charlie',
      ]);
      expect(names((await catalog.list({ limit: 100, domain: 'shared.com' })).entries)).to.deep.equal([
        'Beta',
        'delta',
      ]);
      const paged = await catalog.list({ limit: 1, organization: 'acme' });
      expect(names(paged.entries)).to.deep.equal(['Acme']);
      expect(paged.next).to.equal('acme');
      expect(names((await catalog.list({ limit: 100, domain: 'echo.com' })).entries)).to.deep.equal([]);
    });

    it('names the other entries holding a domain, with their organizations and whether they proved it', async () => {
      expect(await catalog.claimsOf('shared.com', 'Beta')).to.deep.equal([
        { name: 'delta', organization: 'delta', verified: false },
      ]);
      expect(await catalog.claimsOf('shared.com', 'DELTA')).to.deep.equal([
        { name: 'Beta', organization: 'beta', verified: true },
      ]);
      expect(await catalog.claimsOf('shared.com', 'Nobody')).to.have.length(2);
      expect(await catalog.claimsOf('beta.com', 'Beta')).to.deep.equal([]);
      // Beta proved shared.com, not beta.com: a proof is of one domain.
      expect(await catalog.claimsOf('beta.com', 'Acme')).to.deep.equal([
        { name: 'Beta', organization: 'beta', verified: false },
      ]);
      // The operator's file is no claim the catalog knows of: the registry holds those.
      expect(await catalog.claimsOf('echo.com', 'Acme')).to.deep.equal([]);
    });

    it('hands the re-check the entries with a verified domain not looked at since a time', async () => {
      await written('Foxtrot', 'foxtrot', ['foxtrot.com'], [proof('foxtrot.com', { verifiedAt: T0, checkedAt: T0 })]);
      await written('Golf', 'golf', ['golf.com'], [proof('golf.com', { verifiedAt: T0, checkedAt: T0 + 2 * DAY })]);
      await written('Hotel', 'hotel', ['hotel.com'], [proof('hotel.com', { checkedAt: T0 - DAY })]);
      // Beta: verified, never checked since. Foxtrot: checked at T0. Golf: checked later. Hotel: not verified.
      expect(names(await catalog.dueForRecheck(T0 + DAY, 10))).to.deep.equal(['Beta', 'Foxtrot']);
      expect(names(await catalog.dueForRecheck(T0, 10))).to.deep.equal(['Beta']);
      expect(names(await catalog.dueForRecheck(T0 + 3 * DAY, 10))).to.deep.equal(['Beta', 'Foxtrot', 'Golf']);
      expect(await catalog.dueForRecheck(T0 + 3 * DAY, 2)).to.have.length(2);
    });
  });

  describe('through FolderConnections, as the registry reads the folder', () => {
    it('reads a domain added by hand to a file the API wrote as unproved: it routes nobody', async () => {
      await written('Acme', 'acme', ['acme.com'], [proof('acme.com', { verifiedAt: T0 })]);
      const raw = JSON.parse(await readFile(folder.fileOf('Acme'), 'utf8')) as Record<string, any>;
      raw.Domains.push('globex.com');
      await writeFile(folder.fileOf('Acme'), JSON.stringify(raw, null, 2));

      const [declaration] = await directory.read();
      expect(declaration?.problems).to.deep.equal([]);
      expect(declaration?.section.Domains).to.deep.equal(['acme.com', 'globex.com']);
      expect(declaration?.verifiedDomains).to.deep.equal(['acme.com']);
      expect(declaration?.section.ClientSecret).to.equal('acme-secret');
      const { connection } = readConnection(declaration!, CONNECTION_RULES);
      expect(connection?.domains).to.deep.equal(['acme.com']);
      expect(connection?.pendingDomains).to.deep.equal(['globex.com']);
      // The API reads it the same way: a domain without a proof.
      const entry = await catalog.get('Acme');
      expect(entry?.keys.Domains).to.deep.equal(['acme.com', 'globex.com']);
      expect(entry?.domains.map((domain) => domain.domain)).to.deep.equal(['acme.com']);
    });

    it("reads a hand-written file as the operator's word, every domain routing", async () => {
      await folder.write('Handmade', {
        Protocol: 'OpenIdConnect',
        Organization: 'handmade',
        Domains: ['handmade.test'],
        Authority: 'https://login.handmade.example',
        ClientId: 'handmade-client',
        ClientSecret: 'handmade-secret',
      });
      const [declaration] = await catalog.read();
      expect(declaration).to.not.have.property('verifiedDomains');
      expect(readConnection(declaration!, CONNECTION_RULES).connection?.domains).to.deep.equal(['handmade.test']);
    });
  });
});
