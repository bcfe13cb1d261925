/**
 * A large catalog's entries are deferred at start and checked after it: nothing is in force
 * before it is checked, and every lookup answers as checking them all in order would.
 */
import { expect } from 'chai';
import {
  ConnectionRegistry,
  type ConnectionEvent,
} from '../../../../src/application/connections/connection-registry.js';
import type { DeferredDeclaration } from '../../../../src/application/connections/deferred-declarations.js';
import type { ConnectionChange } from '../../../../src/application/ports/connection-directory.js';
import { CONNECTION_RULES, oidcSection, samlSection } from '../../../support/connection-declarations.js';

const RESERVED = new Set(['cookies', 'openidconnect', 'saml2']);

/** A catalog entry's declaration, domains proved as listed; `declared` counts the calls of its `declare`. */
function deferred(
  name: string,
  section: Record<string, unknown>,
  declared: string[],
  proved = section.Domains as string[],
): DeferredDeclaration {
  const origin = `database:${name}`;
  return {
    name,
    origin,
    keys: section,
    provedDomains: proved.map((pattern) => pattern.replace(/^\*\./, '')),
    declare: () => {
      declared.push(name);
      return { name, origin, section, problems: [], verifiedDomains: proved.map((p) => p.replace(/^\*\./, '')) };
    },
  };
}

/** The same declarations as one change each, applied at once: what a start checking them all in order does. */
const asChanges = (declarations: readonly DeferredDeclaration[]): ConnectionChange[] =>
  declarations.map((d) => ({ kind: 'declared', declaration: d.declare() }));

const names = (registry: ConnectionRegistry) => [...registry.all()].map((c) => c.name).sort();

describe('ConnectionRegistry: declarations deferred at start', () => {
  let declared: string[];
  let heard: ConnectionEvent[];
  let registry: ConnectionRegistry;
  beforeEach(() => {
    declared = [];
    heard = [];
    registry = new ConnectionRegistry(CONNECTION_RULES, RESERVED);
    registry.onEvent((event) => heard.push(event));
  });

  it('checks none when deferred: none is in force, refused or reported until checked in the background, in order', () => {
    registry.defer([
      deferred('alpha', oidcSection('alpha', ['alpha.com']), declared),
      deferred('beta', oidcSection('beta', ['beta.com']), declared),
      deferred('gamma', oidcSection('gamma', ['gamma.com']), declared),
    ]);
    expect(declared).to.deep.equal([]);
    expect(registry.size).to.equal(0);
    expect(registry.deferredCount).to.equal(3);
    expect([...registry.deferredNames()]).to.deep.equal(['alpha', 'beta', 'gamma']);
    expect([...registry.inForce()]).to.deep.equal([]);

    expect(registry.checkDeferred(2)).to.equal(true);
    expect(declared).to.deep.equal(['alpha', 'beta']);
    expect(heard.map((event) => [event.kind, event.deferred])).to.deep.equal([
      ['added', true],
      ['added', true],
    ]);
    expect(registry.checkDeferred(2)).to.equal(false);
    expect(registry.size).to.equal(3);
    expect(registry.deferredCount).to.equal(0);
  });

  it('checks, at a lookup by name or domain, the declarations it could find and no other', () => {
    registry.defer([
      deferred('alpha', oidcSection('alpha', ['alpha.com']), declared),
      deferred('beta', samlSection('beta', ['*.beta.com']), declared),
      deferred('gamma', oidcSection('gamma', ['gamma.com']), declared),
    ]);
    expect(registry.byName('GAMMA')?.name).to.equal('gamma');
    expect(declared).to.deep.equal(['gamma']);
    expect(registry.byDomain('team.beta.com')?.name).to.equal('beta');
    expect(declared).to.deep.equal(['gamma', 'beta']);
    expect(registry.byDomain('nobody.example')).to.equal(undefined);
    expect(registry.byName('nobody')).to.equal(undefined);
    expect(declared).to.deep.equal(['gamma', 'beta']);
    expect(registry.deferredCount).to.equal(1);
  });

  it('routes nobody through a domain its owner has not proved, deferred or not', () => {
    registry.defer([deferred('alpha', oidcSection('alpha', ['alpha.com', 'alpha.io']), declared, ['alpha.com'])]);
    expect(registry.byDomain('alpha.io')).to.equal(undefined);
    expect(declared).to.deep.equal([]);
    expect(registry.byDomain('alpha.com')?.name).to.equal('alpha');
  });

  it('refuses a later declaration sharing a domain with an earlier one, even when the later one is asked for first', () => {
    // b is refused for one.com (a's); c, sharing two.com with b only, is then accepted: c
    // asked first must check b, and b must check a, or b would win one.com and refuse c.
    const entries = [
      deferred('a', oidcSection('a', ['one.com']), declared),
      deferred('b', oidcSection('b', ['one.com', 'two.com']), declared),
      deferred('c', oidcSection('c', ['two.com', 'three.com']), declared),
    ];
    registry.defer(entries);
    expect(registry.byDomain('three.com')?.name).to.equal('c');
    expect(declared).to.deep.equal(['a', 'b', 'c']);
    expect(registry.byDomain('two.com')?.name).to.equal('c');
    expect(registry.byName('b')).to.equal(undefined);
    expect([...registry.refused().keys()]).to.deep.equal(['b']);
    const refusal = heard.find((event) => event.kind === 'refused');
    expect(refusal).to.include({ kind: 'refused', name: 'b', deferred: true });
  });

  it('refuses a later declaration naming an earlier one’s identity provider (compared as issuers are), asked for first', () => {
    registry.defer([
      deferred('a', oidcSection('a', ['a.com'], { Authority: 'https://login.shared.example' }), declared),
      deferred('b', oidcSection('b', ['b.com'], { authority: 'HTTPS://LOGIN.SHARED.EXAMPLE/' }), declared),
    ]);
    expect(registry.byName('b')).to.equal(undefined);
    expect(declared).to.deep.equal(['a', 'b']);
    expect(registry.byName('a')?.name).to.equal('a');
  });

  it('finds the wildcard above and the domains below a deferred declaration among its rivals', () => {
    registry.defer([
      deferred('wide', samlSection('wide', ['*.acme.com']), declared),
      deferred('team', samlSection('team', ['team.acme.com']), declared),
    ]);
    expect(registry.byName('team')).to.equal(undefined);
    expect(registry.byDomain('team.acme.com')?.name).to.equal('wide');

    const below = new ConnectionRegistry(CONNECTION_RULES, RESERVED);
    below.defer([
      deferred('team', samlSection('team', ['team.acme.com']), declared),
      deferred('wide', samlSection('wide', ['*.acme.com']), declared),
    ]);
    expect(below.byDomain('other.acme.com')).to.equal(undefined);
    expect(below.byDomain('team.acme.com')?.name).to.equal('team');
  });

  it('checks every deferred declaration before a change, a check, a holder or a list of all', () => {
    const entries = () => [
      deferred('alpha', oidcSection('alpha', ['alpha.com']), declared),
      deferred('beta', oidcSection('beta', ['beta.com']), declared),
    ];
    const change: ConnectionChange = {
      kind: 'declared',
      declaration: { name: 'late', origin: 'late.json', section: oidcSection('late', ['beta.com']), problems: [] },
    };
    registry.defer(entries());
    const [event] = registry.apply([change]);
    // The change meets beta, checked first: refused, as it would be after the start.
    expect(event?.kind).to.equal('refused');
    expect(registry.deferredCount).to.equal(0);

    for (const use of [
      (r: ConnectionRegistry) => r.check(change.kind === 'declared' ? change.declaration : ({} as never)),
      (r: ConnectionRegistry) => r.holderOf('beta.com', 'late'),
      (r: ConnectionRegistry) => [...r.all()],
    ]) {
      const other = new ConnectionRegistry(CONNECTION_RULES, RESERVED);
      other.defer(entries());
      use(other);
      expect(other.deferredCount).to.equal(0);
    }
  });

  it('checks for the login page only the declarations that could be listed there', () => {
    registry.defer([
      deferred('alpha', oidcSection('alpha', ['alpha.com']), declared),
      deferred('beta', oidcSection('beta', ['beta.com'], { ShowOnLoginPage: true }), declared),
    ]);
    expect(registry.listedOnLoginPage().map((c) => c.name)).to.deep.equal(['beta']);
    expect(declared).to.deep.equal(['beta']);
  });

  it('answers every lookup as checking all in order does, whatever the order of the lookups (random catalogs)', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const bases = ['a.test', 'b.test', 'c.test', 'x.a.test', 'y.a.test', 'x.b.test', 'd.test', 'e.test'];
    const patterns = [...bases, ...bases.map((base) => `*.${base}`)];
    const asked = [...bases, 'z.a.test', 'q.x.a.test', 'nobody.test'];
    for (let round = 0; round < 60; round++) {
      const entries = Array.from({ length: 10 }, (_, i) => {
        const domains = [...new Set([patterns[random(patterns.length)]!, patterns[random(patterns.length)]!])];
        const issuer = { Authority: `https://idp${random(6)}.example` };
        const name = `org${String(i).padStart(2, '0')}`;
        return deferred(name, oidcSection(name, domains, issuer), []);
      });
      const inOrder = new ConnectionRegistry(CONNECTION_RULES, RESERVED);
      inOrder.apply(asChanges(entries));
      const lazy = new ConnectionRegistry(CONNECTION_RULES, RESERVED);
      lazy.defer(entries);
      for (let lookup = 0; lookup < 6; lookup++) {
        if (random(2) === 0) {
          const domain = asked[random(asked.length)]!;
          expect(lazy.byDomain(domain)?.name, `round ${round}: ${domain}`).to.equal(inOrder.byDomain(domain)?.name);
        } else {
          const name = `org0${random(10)}`;
          expect(lazy.byName(name)?.name, `round ${round}: ${name}`).to.equal(inOrder.byName(name)?.name);
        }
      }
      expect(names(lazy), `round ${round}`).to.deep.equal(names(inOrder));
      expect([...lazy.refused().keys()].sort()).to.deep.equal([...inOrder.refused().keys()].sort());
    }
  });
});
