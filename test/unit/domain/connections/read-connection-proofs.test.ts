import { expect } from 'chai';
import type { ConnectionDeclaration } from '../../../../src/domain/connections/connection.js';
import { readConnection } from '../../../../src/domain/connections/read-connection.js';
import { CONNECTION_RULES, declaration, oidcSection } from '../../../support/connection-declarations.js';

const ORIGIN = '/srv/connections/Acme.json';

/** Acme's declaration as the catalog hands it over: `verified` its domains proved through DNS (absent: the operator's). */
function acme(domains: string[], verified?: string[]): ConnectionDeclaration {
  const declared = declaration('Acme', oidcSection('acme', domains), ORIGIN);
  return verified === undefined ? declared : { ...declared, verifiedDomains: verified };
}

function connectionOf(declared: ConnectionDeclaration) {
  const { connection, problems } = readConnection(declared, CONNECTION_RULES);
  if (!connection) throw new Error(problems.map((problem) => `${problem.key} ${problem.message}`).join('; '));
  return connection;
}

describe("readConnection: a catalog connection's domains and their DNS proofs", () => {
  it('routes the proved domains and keeps the others pending', () => {
    const connection = connectionOf(acme(['acme.com', 'acme.io', 'acme.eu'], ['acme.io']));
    expect(connection.domains).to.deep.equal(['acme.io']);
    expect(connection.pendingDomains).to.deep.equal(['acme.com', 'acme.eu']);
    expect(connection.managed).to.equal(true);
  });

  it('keeps every domain pending while none is proved, and the connection is still read (a sign-in by name is refused later)', () => {
    const connection = connectionOf(acme(['acme.com', 'acme.io'], []));
    expect(connection.domains).to.deep.equal([]);
    expect(connection.pendingDomains).to.deep.equal(['acme.com', 'acme.io']);
  });

  it('routes a wildcard once its base domain is proved, and not before', () => {
    const before = connectionOf(acme(['acme.com', '*.acme.com'], []));
    expect(before.pendingDomains).to.deep.equal(['acme.com', '*.acme.com']);
    const after = connectionOf(acme(['acme.com', '*.acme.com'], ['acme.com']));
    expect(after.domains).to.deep.equal(['acme.com', '*.acme.com']);
    expect(after.pendingDomains).to.deep.equal([]);
  });

  it('does not route a wildcard because a subdomain under it is proved', () => {
    const connection = connectionOf(acme(['eu.acme.com', '*.acme.com'], ['eu.acme.com']));
    expect(connection.domains).to.deep.equal(['eu.acme.com']);
    expect(connection.pendingDomains).to.deep.equal(['*.acme.com']);
  });

  it('routes nothing for a proof of a domain the connection does not declare', () => {
    const connection = connectionOf(acme(['acme.com'], ['globex.com']));
    expect(connection.domains).to.deep.equal([]);
    expect(connection.pendingDomains).to.deep.equal(['acme.com']);
  });

  it("routes every domain of the operator's declaration (no proofs given), which is not managed by the API", () => {
    const connection = connectionOf(acme(['acme.com', '*.acme.eu']));
    expect(connection.domains).to.deep.equal(['acme.com', '*.acme.eu']);
    expect(connection.pendingDomains).to.deep.equal([]);
    expect(connection.managed).to.equal(false);
  });

  it('splits the normalized domains (the proofs name them normalized)', () => {
    const connection = connectionOf(acme(['ACME.com.', 'Acme.IO'], ['acme.com']));
    expect(connection.domains).to.deep.equal(['acme.com']);
    expect(connection.pendingDomains).to.deep.equal(['acme.io']);
  });

  it('changes its fingerprint when only the proofs change, so that the registry applies a verification', () => {
    const pending = connectionOf(acme(['acme.com', 'acme.io'], []));
    const proved = connectionOf(acme(['acme.com', 'acme.io'], ['acme.com']));
    const operators = connectionOf(acme(['acme.com', 'acme.io']));
    expect(proved.fingerprint).to.not.equal(pending.fingerprint);
    expect(operators.fingerprint).to.not.equal(pending.fingerprint);
    expect(connectionOf(acme(['acme.com', 'acme.io'], ['acme.com'])).fingerprint).to.equal(proved.fingerprint);
  });
});
