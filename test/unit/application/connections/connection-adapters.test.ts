import { expect } from 'chai';
import { ConnectionAdapters } from '../../../../src/application/connections/connection-adapters.js';
import { ConnectionRegistry } from '../../../../src/application/connections/connection-registry.js';
import { connectionInfo } from '../../../../src/application/identity-providers.js';
import type { HealthStatus } from '../../../../src/application/ports/health-check.js';
import type { IdentityProvider } from '../../../../src/application/ports/identity-provider.js';
import type { Logger } from '../../../../src/application/ports/logger.js';
import type { Connection } from '../../../../src/domain/connections/connection.js';
import { GatehouseError } from '../../../../src/domain/errors.js';
import { CONNECTION_RULES, declaration, oidcSection, samlSection } from '../../../support/connection-declarations.js';
import { FakeIdentityProvider } from '../../../support/fake-identity-provider.js';

interface Build {
  connection: Connection;
  settle: { resolve: (adapter: IdentityProvider) => void; reject: (error: unknown) => void };
}

/**
 * The adapter factory the composition root passes, by hand: it records each build, and
 * each build waits until the test settles it (or settles at once with `auto`).
 */
class Builder {
  readonly builds: Build[] = [];
  auto: 'succeed' | 'fail' | undefined = 'succeed';
  health: HealthStatus | 'throws' = 'up';

  readonly build = (connection: Connection): Promise<IdentityProvider> =>
    new Promise<IdentityProvider>((resolve, reject) => {
      const build: Build = { connection, settle: { resolve, reject } };
      this.builds.push(build);
      if (this.auto === 'succeed') resolve(this.adapterFor(connection));
      if (this.auto === 'fail') reject(new Error('SENTINEL-key-file-unreadable'));
    });

  adapterFor(connection: Connection): IdentityProvider {
    const fake = new FakeIdentityProvider();
    return Object.assign(fake, {
      info: connectionInfo(connection),
      healthCheck: {
        name: `identityProvider:${connection.name}`,
        required: false,
        check: async () => {
          if (this.health === 'throws') throw new Error('a check that broke its promise');
          return this.health;
        },
      },
    });
  }

  countFor(name: string): number {
    return this.builds.filter((build) => build.connection.name === name).length;
  }
}

class RecordingLogger implements Logger {
  readonly lines: string[] = [];
  debug() {}
  info() {}
  warn() {}
  error(fields: object, message: string) {
    this.lines.push(`${message} ${JSON.stringify(fields)}`);
  }
}

describe('ConnectionAdapters: one adapter per connection, built on first use', () => {
  let registry: ConnectionRegistry;
  let builder: Builder;
  let logger: RecordingLogger;
  let adapters: ConnectionAdapters;
  const declare = (name: string, section: Record<string, unknown>) =>
    registry.apply([{ kind: 'declared', declaration: declaration(name, section, `/srv/connections/${name}.json`) }]);
  const acme = (extra: Record<string, unknown> = {}) => declare('Acme', samlSection('acme', ['acme.com'], extra));

  beforeEach(() => {
    registry = new ConnectionRegistry(CONNECTION_RULES, new Set(['cookies']));
    builder = new Builder();
    logger = new RecordingLogger();
    adapters = new ConnectionAdapters(registry, builder.build, logger);
    acme();
    declare('Globex', oidcSection('globex', ['globex.com']));
  });

  it('builds nothing before a connection is used', () => {
    expect(builder.builds).to.have.length(0);
  });

  it('builds a connection once, whatever the letter case it is asked by, and shares it', async () => {
    const [first, second, third] = await Promise.all([
      adapters.adapterOf('acme'),
      adapters.adapterOf('ACME'),
      adapters.adapterOf('Acme'),
    ]);
    expect(first).to.equal(second).and.to.equal(third);
    expect(first?.info).to.include({ key: 'Acme', scheme: 'Acme', kind: 'Saml2' });
    expect(builder.countFor('Acme')).to.equal(1);
    expect(builder.countFor('Globex')).to.equal(0);
  });

  it('answers undefined for a name no connection has, building nothing', () => {
    expect(adapters.adapterOf('initech')).to.equal(undefined);
    expect(builder.builds).to.have.length(0);
  });

  it('builds again after the connection changed, from the new version', async () => {
    const before = await adapters.adapterOf('acme');
    acme({ DisplayName: 'Acme Corp' });
    const after = await adapters.adapterOf('acme');
    expect(after).not.to.equal(before);
    expect(after?.info.displayName).to.equal('Acme Corp');
    expect(builder.countFor('Acme')).to.equal(2);
    expect(await adapters.adapterOf('acme')).to.equal(after);
  });

  it('keeps the adapter when the declaration is written again unchanged, or a change of it is refused', async () => {
    const before = await adapters.adapterOf('acme');
    acme();
    acme({ Domains: ['gmail.com'] });
    expect(await adapters.adapterOf('acme')).to.equal(before);
    expect(builder.countFor('Acme')).to.equal(1);
  });

  it('drops the adapter of a removed connection: nothing is answered for it, and an addition builds anew', async () => {
    const before = await adapters.adapterOf('acme');
    registry.apply([{ kind: 'removed', name: 'Acme', origin: '/srv/connections/Acme.json' }]);
    expect(adapters.adapterOf('acme')).to.equal(undefined);
    acme();
    expect(await adapters.adapterOf('acme')).not.to.equal(before);
    expect(builder.countFor('Acme')).to.equal(2);
  });

  it('does not keep a failed build: the next use tries again, and the failure is a safe idp.unavailable', async () => {
    builder.auto = 'fail';
    const failure = await adapters.adapterOf('acme')?.catch((error: unknown) => error);
    expect(failure).to.be.instanceOf(GatehouseError);
    expect(failure).to.include({ code: 'idp.unavailable', safe: true });
    expect(logger.lines.join('\n')).to.contain('"connection":"Acme"').and.not.to.contain('SENTINEL');
    builder.auto = 'succeed';
    const adapter = await adapters.adapterOf('acme');
    expect(adapter?.info.key).to.equal('Acme');
    expect(builder.countFor('Acme')).to.equal(2);
  });

  it("a failed build of an earlier version does not drop the later version's adapter", async () => {
    builder.auto = undefined;
    const earlier = adapters.adapterOf('acme')?.catch(() => 'failed');
    acme({ DisplayName: 'v2' });
    const later = adapters.adapterOf('acme');
    const [first, second] = builder.builds;
    second?.settle.resolve(builder.adapterFor(second.connection));
    await later;
    first?.settle.reject(new Error('the earlier key file was gone'));
    expect(await earlier).to.equal('failed');
    builder.auto = 'succeed';
    expect(await adapters.adapterOf('acme')).to.equal(await later);
    expect(builder.countFor('Acme')).to.equal(2);
  });

  describe('report (readiness)', () => {
    it('says idle for a connection never used, contacting nothing', async () => {
      expect(await adapters.report()).to.deep.equal({ Acme: 'idle', Globex: 'idle' });
      expect(builder.builds).to.have.length(0);
    });

    it("says up or down once used, by the adapter's own check, and idle again after a build that failed (not kept)", async () => {
      await adapters.adapterOf('acme');
      expect(await adapters.report()).to.deep.equal({ Acme: 'up', Globex: 'idle' });
      builder.health = 'down';
      expect(await adapters.report()).to.deep.equal({ Acme: 'down', Globex: 'idle' });
      builder.health = 'throws';
      expect(await adapters.report()).to.deep.equal({ Acme: 'down', Globex: 'idle' });
      builder.auto = undefined;
      const pending = adapters.adapterOf('globex')?.catch(() => undefined);
      builder.builds.at(-1)?.settle.reject(new Error('no'));
      await pending;
      expect((await adapters.report()).Globex).to.equal('idle');
    });

    it('says refused for a declaration refused with no earlier version, by the name it was declared with', async () => {
      declare('Initech', oidcSection('initech', ['gmail.com']));
      expect(await adapters.report()).to.deep.equal({ Acme: 'idle', Globex: 'idle', Initech: 'refused' });
    });

    it('keeps saying what the version in force is when a change of it is refused', async () => {
      await adapters.adapterOf('acme');
      acme({ Domains: ['gmail.com'] });
      expect(await adapters.report()).to.deep.equal({ Acme: 'up', Globex: 'idle' });
    });

    it('says pending for a declaration deferred at start and not checked yet, and checks none to say so', async () => {
      const section = oidcSection('initech', ['initech.com']);
      let declared = 0;
      registry.defer([
        {
          name: 'Initech',
          origin: 'database:initech',
          keys: section,
          provedDomains: ['initech.com'],
          declare: () => {
            declared++;
            return {
              name: 'Initech',
              origin: 'database:initech',
              section,
              problems: [],
              verifiedDomains: ['initech.com'],
            };
          },
        },
      ]);
      expect(await adapters.report()).to.deep.equal({ Acme: 'idle', Globex: 'idle', Initech: 'pending' });
      expect(declared).to.equal(0);
      registry.checkDeferred(1);
      expect(await adapters.report()).to.deep.equal({ Acme: 'idle', Globex: 'idle', Initech: 'idle' });
    });

    it('forgets a removed connection', async () => {
      registry.apply([{ kind: 'removed', name: 'Globex', origin: '/srv/connections/Globex.json' }]);
      expect(await adapters.report()).to.deep.equal({ Acme: 'idle' });
    });
  });
});
