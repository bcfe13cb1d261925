import { expect } from 'chai';
import { CertificateExpiry } from '../../../../src/application/connections/certificate-expiry.js';
import { ConnectionAdapters } from '../../../../src/application/connections/connection-adapters.js';
import { ConnectionRegistry } from '../../../../src/application/connections/connection-registry.js';
import { connectionInfo } from '../../../../src/application/identity-providers.js';
import type { IdentityProvider } from '../../../../src/application/ports/identity-provider.js';
import { MemorySessionStore } from '../../../../src/adapters/session/memory-session-store.js';
import type { Connection } from '../../../../src/domain/connections/connection.js';
import { CONNECTION_RULES, declaration, oidcSection, samlSection } from '../../../support/connection-declarations.js';
import { FakeIdentityProvider } from '../../../support/fake-identity-provider.js';
import { FixedClock } from '../../../support/fixed-clock.js';
import { RecordingAuditLog } from '../../../support/recording-audit-log.js';

const DAY_MS = 24 * 60 * 60_000;

/**
 * CertificateExpiry over the real registry and adapter cache, with fake adapters that count
 * how often their certificates are asked for (each ask is, in a real adapter, a read of
 * what it holds, or its first load).
 */
describe('CertificateExpiry: the connections’ signing certificates, their gauge and their warning', () => {
  let clock: FixedClock;
  let registry: ConnectionRegistry;
  let adapters: ConnectionAdapters;
  let audit: RecordingAuditLog;
  let expiry: CertificateExpiry;
  const asked = new Map<string, number>();
  const warnings: string[] = [];
  /** Each connection's certificates' end of validity, days from the start. */
  const ends: Record<string, number[]> = { Acme: [400, 12], Globex: [5] };

  const declare = (name: string, section: Record<string, unknown>) =>
    registry.apply([{ kind: 'declared', declaration: declaration(name, section, `/srv/connections/${name}.json`) }]);

  beforeEach(() => {
    clock = new FixedClock();
    const start = clock.now();
    asked.clear();
    warnings.length = 0;
    registry = new ConnectionRegistry(CONNECTION_RULES, new Set(['cookies']));
    const build = async (connection: Connection): Promise<IdentityProvider> =>
      Object.assign(new FakeIdentityProvider(), {
        info: connectionInfo(connection),
        signingCertificates: async () => {
          asked.set(connection.name, (asked.get(connection.name) ?? 0) + 1);
          return (ends[connection.name] ?? []).map((days) => ({
            subject: `CN=${connection.name}-${days}`,
            notAfter: start + days * DAY_MS,
          }));
        },
      });
    const quiet = {
      debug() {},
      info() {},
      error() {},
      warn: (_: object, message: string) => void warnings.push(message),
    };
    adapters = new ConnectionAdapters(registry, build, quiet);
    audit = new RecordingAuditLog();
    expiry = new CertificateExpiry({
      adapters,
      store: new MemorySessionStore({ maxEntries: 100, clock }),
      audit,
      logger: quiet,
      clock,
    });
    declare('Acme', samlSection('acme', ['acme.com']));
    declare('Globex', oidcSection('globex', ['globex.com']));
  });

  it('answers a connection’s certificates soonest first, and none for another organization’s or one not in force', async () => {
    expect(await expiry.of('acme')).to.deep.equal([
      { subject: 'CN=Acme-12', notAfter: new Date(clock.now() + 12 * DAY_MS).toISOString(), daysLeft: 12 },
      { subject: 'CN=Acme-400', notAfter: new Date(clock.now() + 400 * DAY_MS).toISOString(), daysLeft: 400 },
    ]);
    expect(await expiry.of('Acme', 'globex')).to.equal(undefined);
    expect(await expiry.of('Initech')).to.equal(undefined);
  });

  it('looks on the hour only at connections in use here: no identity provider is contacted to fill the gauge', async () => {
    await expiry.check();
    expect(asked.size).to.equal(0);
    expect(expiry.secondsLeft()).to.deep.equal([]);
    await adapters.adapterOf('Globex');
    await expiry.check();
    expect([...asked.keys()]).to.deep.equal(['Globex']);
    expect(expiry.secondsLeft()).to.deep.equal([{ connection: 'Globex', seconds: 5 * 86_400 }]);
  });

  it('drops a connection’s series when it is removed or changed, until it is read again', async () => {
    await expiry.of('Acme');
    expect(expiry.secondsLeft()).to.deep.equal([{ connection: 'Acme', seconds: 12 * 86_400 }]);
    declare('Acme', samlSection('acme', ['acme.com'], { DisplayName: 'Acme Corp' }));
    expect(expiry.secondsLeft()).to.deep.equal([]);
    await expiry.of('Acme');
    registry.apply([{ kind: 'removed', name: 'Acme', origin: '/srv/connections/Acme.json' }]);
    expect(expiry.secondsLeft()).to.deep.equal([]);
  });

  it('warns once a day within 30 days, and again the next day', async () => {
    for (let n = 0; n < 3; n += 1) await expiry.of('Acme');
    expect(audit.ofType('connection.certificate_expiring')).to.deep.equal([
      {
        type: 'connection.certificate_expiring',
        provider: 'Acme',
        connection: 'Acme',
        organization: 'acme',
        count: 12,
      },
    ]);
    expect(warnings).to.have.length(1);
    clock.advance(DAY_MS);
    await expiry.of('Acme');
    expect(audit.ofType('connection.certificate_expiring').map((event) => event.count)).to.deep.equal([12, 11]);
  });
});
