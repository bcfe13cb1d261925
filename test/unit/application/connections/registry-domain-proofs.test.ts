import { expect } from 'chai';
import { ConnectionRegistry } from '../../../../src/application/connections/connection-registry.js';
import type { ConnectionDeclaration } from '../../../../src/domain/connections/connection.js';
import { CONNECTION_RULES, declaration, oidcSection } from '../../../support/connection-declarations.js';

const RESERVED = new Set(['cookies', 'openidconnect', 'saml2']);
const inFolder = (name: string) => `/srv/connections/${name}.json`;

/** A catalog connection of `organization`, with `verified` its domains proved through DNS. */
function managed(name: string, organization: string, domains: string[], verified: string[]): ConnectionDeclaration {
  return { ...declaration(name, oidcSection(organization, domains), inFolder(name)), verifiedDomains: verified };
}

describe('ConnectionRegistry: domains proved through DNS', () => {
  let registry: ConnectionRegistry;
  beforeEach(() => {
    registry = new ConnectionRegistry(CONNECTION_RULES, RESERVED);
  });
  const apply = (d: ConnectionDeclaration) =>
    registry.apply([{ kind: 'declared', declaration: d }]).map((event) => event.kind);

  it('routes a domain once the same keys come again with its proof, and stops when the proof goes', () => {
    expect(apply(managed('Acme', 'acme', ['acme.com'], []))).to.deep.equal(['added']);
    expect(registry.byDomain('acme.com')).to.equal(undefined);
    expect(registry.byName('acme')?.pendingDomains).to.deep.equal(['acme.com']);

    expect(apply(managed('Acme', 'acme', ['acme.com'], ['acme.com']))).to.deep.equal(['changed']);
    expect(registry.byDomain('acme.com')?.name).to.equal('Acme');
    expect(registry.byDomain('ada.acme.com')).to.equal(undefined);

    // The same declaration again replaces nothing.
    expect(apply(managed('Acme', 'acme', ['acme.com'], ['acme.com']))).to.deep.equal([]);

    expect(apply(managed('Acme', 'acme', ['acme.com'], []))).to.deep.equal(['changed']);
    expect(registry.byDomain('acme.com')).to.equal(undefined);
  });

  it('keeps no other organization from a domain another has not proved, and refuses one that proved it', () => {
    expect(apply(managed('Acme', 'acme', ['shared.test'], []))).to.deep.equal(['added']);
    expect(apply(managed('Globex', 'globex', ['shared.test'], ['shared.test']))).to.deep.equal(['added']);
    expect(registry.byDomain('shared.test')?.name).to.equal('Globex');
    expect(apply(managed('Initech', 'initech', ['shared.test'], ['shared.test']))).to.deep.equal(['refused']);
  });
});
