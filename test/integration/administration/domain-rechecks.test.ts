import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { catalogDeclarations } from '../../../src/adapters/connections/catalog-declarations.js';
import { sectionReader, type SectionReader } from '../../../src/adapters/connections/connection-section.js';
import { FolderConnectionCatalog } from '../../../src/adapters/connections/folder-connection-catalog.js';
import { FolderConnections } from '../../../src/adapters/connections/folder-connections.js';
import { settingsSchema } from '../../../src/adapters/config/settings-schema.js';
import { DnsTxtRecords } from '../../../src/adapters/dns/dns-txt-records.js';
import { SecretSealer } from '../../../src/adapters/secrets/secret-sealer.js';
import { DomainRechecks } from '../../../src/application/administration/domain-rechecks.js';
import { ConnectionRegistry } from '../../../src/application/connections/connection-registry.js';
import type { DeclareEntry, DomainProof } from '../../../src/application/ports/connection-catalog.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import { CONNECTION_RULES } from '../../support/connection-declarations.js';
import { ConnectionFolder } from '../../support/connection-folder.js';
import { FixedClock } from '../../support/fixed-clock.js';
import { LoopbackDns } from '../../support/loopback-dns.js';
import { RecordingAuditLog } from '../../support/recording-audit-log.js';

const T0 = Date.UTC(2026, 0, 1);
const INTERVAL_MS = 86_400_000;
const TOKEN = 'k3Jq9VxP2mW7tR4sYb8nLc';
const RECORD = '_gatehouse-challenge.acme.com';
const VALUE = `gatehouse-domain-verification=${TOKEN}`;

/**
 * The periodic re-check of verified domains, composed as src/bootstrap/administration.ts
 * composes it: the folder catalog, the registry the sign-ins route through, the catalog's
 * declarations, and a real DNS server on loopback asked through Node's resolver; only the
 * clock is the test's.
 */
describe('DomainRechecks: verified domains looked up again, against a real DNS server', function () {
  this.timeout(30_000);
  let dns: LoopbackDns;
  let reader: SectionReader;
  let sealer: SecretSealer;
  let folder: ConnectionFolder;
  let catalog: FolderConnectionCatalog;
  let declare: DeclareEntry;
  let registry: ConnectionRegistry;
  let clock: FixedClock;
  let audit: RecordingAuditLog;
  let warnings: Array<{ fields: Record<string, unknown>; message: string }>;
  let rechecks: DomainRechecks;

  before(async () => {
    dns = await LoopbackDns.start();
    reader = sectionReader(await settingsSchema(builtInProviders));
    sealer = new SecretSealer([randomBytes(32).toString('base64')]);
  });
  after(async () => dns?.close());

  beforeEach(async () => {
    folder = await ConnectionFolder.create();
    declare = catalogDeclarations(reader, sealer);
    const logger = {
      debug() {},
      info() {},
      warn: (fields: object, message: string) => warnings.push({ fields: fields as Record<string, unknown>, message }),
      error() {},
    };
    catalog = new FolderConnectionCatalog(
      folder.path,
      new FolderConnections(folder.path, reader, logger, 25, undefined, declare),
    );
    registry = new ConnectionRegistry(CONNECTION_RULES, new Set(['cookies']));
    clock = new FixedClock(T0);
    audit = new RecordingAuditLog();
    warnings = [];
    dns.asked.length = 0;
    dns.remove(RECORD);
    rechecks = new DomainRechecks({
      catalog,
      registry,
      declare,
      txtRecords: new DnsTxtRecords({ servers: [dns.address], timeoutMs: 300 }),
      audit,
      logger,
      now: () => clock.now(),
      prefixes: {},
      intervalMs: INTERVAL_MS,
      missesBeforeUnverified: 3,
    });
    // Acme proved acme.com (its wildcard rides on it) at T0; acme.io waits for its record.
    const proofs: DomainProof[] = [
      { domain: 'acme.com', token: TOKEN, verifiedAt: T0, checkedAt: T0, misses: 0 },
      { domain: '*.acme.com', token: '', misses: 0 },
      { domain: 'acme.io', token: 'Zz9Yy8Xx7Ww6Vv5Uu4Tt3S', misses: 0 },
    ];
    const written = await catalog.put(
      {
        name: 'Acme',
        keys: {
          Protocol: 'OpenIdConnect',
          Organization: 'acme',
          Domains: proofs.map((proof) => proof.domain),
          Authority: 'https://login.acme.example',
          ClientId: 'acme-client',
          ClientSecret: sealer.seal('acme-secret', { connection: 'acme', field: 'ClientSecret' }),
        },
        domains: proofs,
      },
      0,
      T0,
    );
    expect(written.kind).to.equal('written');
    // The start: the registry reads the catalog.
    registry.apply((await catalog.read()).map((declaration) => ({ kind: 'declared', declaration })));
    expect(registry.byDomain('acme.com')?.name).to.equal('Acme');
  });
  afterEach(async () => folder.dispose());

  /** The proof of acme.com as the catalog holds it now. */
  const acmeProof = async () => (await catalog.get('Acme'))?.domains.find((proof) => proof.domain === 'acme.com');
  /** A round one interval after the last. */
  const nextRound = async () => {
    clock.advance(INTERVAL_MS + 1);
    return rechecks.round();
  };

  it('confirms a verified domain whose record stays, and asks for no other name', async () => {
    dns.set(RECORD, { txt: [['v=spf1 -all'], [VALUE]] });
    expect(await nextRound()).to.equal(1);
    expect(dns.asked).to.deep.equal([RECORD]);
    expect(await acmeProof()).to.deep.equal({
      domain: 'acme.com',
      token: TOKEN,
      verifiedAt: T0,
      checkedAt: clock.now(),
      misses: 0,
    });
    expect((await catalog.get('Acme'))?.version).to.equal(2);
    expect(registry.byDomain('acme.com')?.name).to.equal('Acme');
    expect(registry.byDomain('eu.acme.com')?.name).to.equal('Acme');
    expect(audit.events).to.deep.equal([]);
    expect(warnings).to.deep.equal([]);
  });

  it('un-verifies a domain whose record is gone at the third round in a row, not before, and stops routing it', async () => {
    for (const round of [1, 2]) {
      expect(await nextRound()).to.equal(1);
      expect(await acmeProof(), `round ${round}`).to.include({ verifiedAt: T0, misses: round });
      expect(registry.byDomain('acme.com')?.name, `round ${round}`).to.equal('Acme');
      expect(audit.events).to.deep.equal([]);
    }
    expect(await nextRound()).to.equal(1);
    const proof = await acmeProof();
    expect(proof).to.not.have.property('verifiedAt');
    expect(proof).to.include({ misses: 0, checkedAt: clock.now() });

    expect(audit.ofType('domain.unverified')).to.deep.equal([
      {
        type: 'domain.unverified',
        actor: 'system',
        connection: 'Acme',
        organization: 'acme',
        domain: 'acme.com',
        count: 3,
      },
    ]);
    expect(warnings).to.have.length(1);
    expect(warnings[0]?.fields).to.deep.equal({ connection: 'Acme', domain: 'acme.com', misses: 3 });
    expect(JSON.stringify(warnings)).to.not.include(TOKEN);

    // Discovery routes nobody there any more, its wildcard with it; the connection stays, its domains pending.
    expect(registry.byDomain('acme.com')).to.equal(undefined);
    expect(registry.byDomain('eu.acme.com')).to.equal(undefined);
    expect(registry.byName('Acme')?.pendingDomains).to.have.members(['acme.com', '*.acme.com', 'acme.io']);

    // An unverified domain is not looked up again.
    const asked = dns.asked.length;
    expect(await nextRound()).to.equal(0);
    expect(dns.asked).to.have.length(asked);
  });

  it('forgives misses once the record is back before the last one', async () => {
    await nextRound();
    await nextRound();
    expect(await acmeProof()).to.include({ misses: 2 });
    dns.set(RECORD, { txt: [[VALUE]] });
    await nextRound();
    expect(await acmeProof()).to.include({ verifiedAt: T0, misses: 0 });
    dns.remove(RECORD);
    await nextRound();
    await nextRound();
    expect(await acmeProof()).to.include({ verifiedAt: T0, misses: 2 });
    expect(registry.byDomain('acme.com')?.name).to.equal('Acme');
  });

  it('changes nothing when the DNS server never answers, however many rounds', async () => {
    dns.set(RECORD, { silent: true });
    for (let round = 0; round < 4; round += 1) expect(await nextRound()).to.equal(1);
    expect(dns.asked.filter((name) => name === RECORD)).to.have.length(4);
    expect(await acmeProof()).to.include({ verifiedAt: T0, misses: 0, checkedAt: clock.now() });
    expect(registry.byDomain('acme.com')?.name).to.equal('Acme');
    expect(audit.events).to.deep.equal([]);
    expect(warnings).to.deep.equal([]);
  });

  it('changes nothing when the DNS server fails (SERVFAIL)', async () => {
    dns.set(RECORD, { servfail: true });
    for (let round = 0; round < 4; round += 1) await nextRound();
    expect(await acmeProof()).to.include({ verifiedAt: T0, misses: 0 });
    expect(registry.byDomain('acme.com')?.name).to.equal('Acme');
  });

  it('looks up only the domains due of a connection with several verified ones', async () => {
    const proofs: DomainProof[] = [
      { domain: 'initech.com', token: TOKEN, verifiedAt: T0, checkedAt: T0, misses: 0 },
      { domain: 'initech.net', token: TOKEN, verifiedAt: T0, checkedAt: T0 + INTERVAL_MS / 2, misses: 0 },
    ];
    await catalog.put(
      {
        name: 'Initech',
        keys: {
          Protocol: 'OpenIdConnect',
          Organization: 'initech',
          Domains: ['initech.com', 'initech.net'],
          Authority: 'https://login.initech.example',
          ClientId: 'initech-client',
          ClientSecret: sealer.seal('initech-secret', { connection: 'initech', field: 'ClientSecret' }),
        },
        domains: proofs,
      },
      0,
      T0,
    );
    expect(await nextRound()).to.equal(2);
    expect([...dns.asked].sort()).to.deep.equal([RECORD, '_gatehouse-challenge.initech.com']);
    const initech = await catalog.get('Initech');
    expect(initech?.domains.find((proof) => proof.domain === 'initech.net')).to.deep.equal(proofs[1]);
    expect(initech?.domains.find((proof) => proof.domain === 'initech.com')).to.include({ misses: 1 });
    expect(registry.byDomain('initech.net')?.name).to.equal('Initech');
  });

  it('looks a domain up once per interval: one checked recently is not asked for', async () => {
    dns.set(RECORD, { txt: [[VALUE]] });
    // Checked at T0: not due until the interval has passed.
    clock.advance(INTERVAL_MS - 1);
    expect(await rechecks.round()).to.equal(0);
    expect(dns.asked).to.deep.equal([]);
    clock.advance(2);
    expect(await rechecks.round()).to.equal(1);
    expect(dns.asked).to.deep.equal([RECORD]);
    // Just checked: the next round at the same time, or a little later, asks nothing.
    expect(await rechecks.round()).to.equal(0);
    clock.advance(INTERVAL_MS / 2);
    expect(await rechecks.round()).to.equal(0);
    expect(dns.asked).to.deep.equal([RECORD]);
    expect((await catalog.get('Acme'))?.version).to.equal(2);
  });
});
