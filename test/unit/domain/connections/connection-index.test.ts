import { expect } from 'chai';
import type { Connection } from '../../../../src/domain/connections/connection.js';
import { ConnectionIndex } from '../../../../src/domain/connections/connection-index.js';
import { connectionOf, oidcSection, samlSection } from '../../../support/connection-declarations.js';

/** The built-in providers' keys and schemes, and `Cookies`, as the composition root reserves them. */
const RESERVED = new Set(['cookies', 'openidconnect', 'saml2', 'social1', 'social2', 'social3']);

function indexOf(...connections: Connection[]): ConnectionIndex {
  const index = new ConnectionIndex(RESERVED);
  for (const connection of connections) {
    expect(index.conflicts(connection), connection.name).to.deep.equal([]);
    index.put(connection);
  }
  return index;
}

const acme = connectionOf('Acme', samlSection('acme', ['acme.com', '*.acme.com']));
const globex = connectionOf('Globex', oidcSection('globex', ['globex.com', 'team.globex-group.com']));

describe('ConnectionIndex: the rules between connections', () => {
  describe('finds a connection by name, domain and identity provider', () => {
    const index = indexOf(acme, globex);
    it('by name, in any letter case', () => {
      expect(index.byName('acme')).to.equal(acme);
      expect(index.byName('GLOBEX')).to.equal(globex);
      expect(index.byName('initech')).to.equal(undefined);
    });
    it('by normalized domain, exact or under a wildcard', () => {
      expect(index.byDomain('acme.com')).to.equal(acme);
      expect(index.byDomain('eu.acme.com')).to.equal(acme);
      expect(index.byDomain('team.globex-group.com')).to.equal(globex);
      expect(index.byDomain('globex-group.com')).to.equal(undefined);
      expect(index.byDomain('eu.globex.com')).to.equal(undefined);
    });
    it('by issuer, without its trailing slash and in any case of scheme and host', () => {
      expect(index.byIssuer('https://login.globex.example')).to.equal(globex);
      expect(index.byIssuer('HTTPS://Login.Globex.Example/')).to.equal(globex);
      expect(index.byIssuer('https://idp.acme.example/metadata')).to.equal(acme);
    });
  });

  describe('refuses what two connections would share, naming the key and the other connection', () => {
    const conflicts: ReadonlyArray<[label: string, candidate: Connection, setting: string, message: RegExp]> = [
      [
        'a domain held already',
        connectionOf('Initech', oidcSection('initech', ['initech.com', 'globex.com'])),
        'Domains:1',
        /held by the connection Globex/,
      ],
      [
        'a domain held already, in another spelling (case, IDNA, trailing dot)',
        connectionOf('Initech', oidcSection('initech', ['GLOBEX.com.'])),
        'Domains:0',
        /held by the connection Globex/,
      ],
      [
        'a subdomain under a held wildcard',
        connectionOf('Initech', oidcSection('initech', ['eu.acme.com'])),
        'Domains:0',
        /held by the connection Acme/,
      ],
      [
        'a wildcard over a held domain',
        connectionOf('Initech', oidcSection('initech', ['*.globex-group.com'])),
        'Domains:0',
        /held by the connection Globex/,
      ],
      [
        'a wildcard under a held wildcard',
        connectionOf('Initech', oidcSection('initech', ['*.eu.acme.com'])),
        'Domains:0',
        /held by the connection Acme/,
      ],
      [
        'the same OpenID issuer',
        connectionOf('Initech', oidcSection('initech', ['initech.com'], { Authority: 'https://login.globex.example' })),
        'Authority',
        /identity provider of the connection Globex/,
      ],
      [
        'the same OpenID issuer with a trailing slash',
        connectionOf(
          'Initech',
          oidcSection('initech', ['initech.com'], { Authority: 'https://login.globex.example/' }),
        ),
        'Authority',
        /identity provider of the connection Globex/,
      ],
      [
        'the same OpenID issuer in another case of scheme and host',
        connectionOf('Initech', oidcSection('initech', ['initech.com'], { Authority: 'HTTPS://LOGIN.Globex.example' })),
        'Authority',
        /identity provider of the connection Globex/,
      ],
      [
        'the same SAML metadata URL',
        connectionOf(
          'Initech',
          samlSection('initech', ['initech.com'], { MetadataUrl: 'https://idp.acme.example/metadata/' }),
        ),
        'MetadataUrl',
        /identity provider of the connection Acme/,
      ],
    ];
    for (const [label, candidate, setting, message] of conflicts) {
      it(label, () => {
        const index = indexOf(acme, globex);
        const found = index.conflicts(candidate);
        expect(found.map((conflict) => conflict.setting)).to.deep.equal([setting]);
        expect(found[0]?.message).to.match(message);
      });
    }

    it('the same SAML IdpEntityId (two connections in one federation aggregate)', () => {
      const federation = { MetadataUrl: 'https://federation.example/aggregate.xml' };
      const first = connectionOf(
        'Acme',
        samlSection('acme', ['acme.com'], { ...federation, IdpEntityId: 'https://idp.acme.example' }),
      );
      const index = indexOf(first);
      const second = connectionOf(
        'Initech',
        samlSection('initech', ['initech.com'], { ...federation, IdpEntityId: 'https://idp.acme.example/' }),
      );
      expect(index.conflicts(second).map((conflict) => conflict.setting)).to.deep.equal(['IdpEntityId']);
      const third = connectionOf(
        'Globex',
        samlSection('globex', ['globex.com'], { ...federation, IdpEntityId: 'https://idp.globex.example' }),
      );
      expect(index.conflicts(third), 'one aggregate, another identity provider').to.deep.equal([]);
    });

    it('the same OpenID issuer with a path, with and without its trailing slash', () => {
      const tenant = 'https://login.microsoftonline.example/4f1e/v2.0';
      const index = indexOf(connectionOf('Acme', oidcSection('acme', ['acme.com'], { Authority: tenant })));
      const slashed = connectionOf('Initech', oidcSection('initech', ['initech.com'], { Authority: `${tenant}/` }));
      expect(index.conflicts(slashed).map((conflict) => conflict.setting)).to.deep.equal(['Authority']);
      const otherTenant = connectionOf(
        'Globex',
        oidcSection('globex', ['globex.com'], { Authority: 'https://login.microsoftonline.example/9c2d/v2.0' }),
      );
      expect(index.conflicts(otherTenant), 'one host, another tenant').to.deep.equal([]);
    });

    it('a name held by a connection from another origin, in another letter case', () => {
      const index = indexOf(acme);
      const fromFolder = connectionOf('ACME', samlSection('acme2', ['acme2.com']), '/srv/connections/ACME.json');
      const found = index.conflicts(fromFolder);
      expect(found.map((conflict) => conflict.setting)).to.deep.equal(['']);
      expect(found[0]?.message).to.contain('ProjectTemplate:Authentication:Connections:Acme');
    });

    for (const name of ['Cookies', 'openidconnect', 'SAML2', 'Social1']) {
      it(`a reserved name: ${name}`, () => {
        const candidate = connectionOf(name, oidcSection('x', ['x.example']));
        const found = new ConnectionIndex(RESERVED).conflicts(candidate);
        expect(found.map((conflict) => conflict.setting)).to.deep.equal(['']);
        expect(found[0]?.message).to.contain('built-in provider');
      });
    }
  });

  describe('a connection replaced by a new version of itself', () => {
    it('may keep its own name, domains and issuer', () => {
      const index = indexOf(acme, globex);
      const same = connectionOf('Acme', samlSection('acme', ['acme.com', '*.acme.com', 'acme.org']));
      expect(index.conflicts(same)).to.deep.equal([]);
    });

    it('may not widen onto a domain another connection holds, even past its own earlier domains', () => {
      const index = indexOf(
        connectionOf('A', oidcSection('a', ['a.example.com'])),
        connectionOf('B', oidcSection('b', ['b.example.com'])),
      );
      const widened = connectionOf('A', oidcSection('a', ['*.example.com']));
      const found = index.conflicts(widened);
      expect(found.map((conflict) => conflict.setting)).to.deep.equal(['Domains:0']);
      expect(found[0]?.message).to.contain('connection B');
    });

    it('gives up what it no longer holds when put', () => {
      const index = indexOf(acme, globex);
      index.put(connectionOf('Acme', samlSection('acme', ['acme.org'], { MetadataUrl: 'https://idp.acme.org/md' })));
      expect(index.byDomain('acme.com')).to.equal(undefined);
      expect(index.byDomain('eu.acme.com')).to.equal(undefined);
      expect(index.byDomain('acme.org')?.name).to.equal('Acme');
      expect(index.byIssuer('https://idp.acme.example/metadata')).to.equal(undefined);
      expect(index.size).to.equal(2);
      // What it gave up can be claimed by another.
      expect(index.conflicts(connectionOf('Initech', samlSection('initech', ['acme.com'])))).to.deep.equal([]);
    });
  });

  it('removes a connection with everything it held', () => {
    const index = indexOf(acme, globex);
    expect(index.remove('ACME')).to.equal(acme);
    expect(index.byName('acme')).to.equal(undefined);
    expect(index.byDomain('eu.acme.com')).to.equal(undefined);
    expect(index.byIssuer('https://idp.acme.example/metadata')).to.equal(undefined);
    expect(index.remove('acme')).to.equal(undefined);
    expect([...index.all()]).to.deep.equal([globex]);
  });
});
