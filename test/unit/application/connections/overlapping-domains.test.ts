/**
 * A wildcard (`*.acme.test`) overlaps every domain below it: held by another organization,
 * any of them refuses it. Found through an index of what lies below each domain, kept as
 * connections come and go, rather than by scanning every domain held (docs/performance.md).
 */
import { expect } from 'chai';
import {
  ConnectionRegistry,
  type ConnectionEvent,
} from '../../../../src/application/connections/connection-registry.js';
import { CONNECTION_RULES } from '../../../support/connection-declarations.js';

function samlConnection(name: string, domains: string[]) {
  return {
    kind: 'declared' as const,
    declaration: {
      name,
      origin: `${name}.json`,
      section: {
        Protocol: 'Saml2',
        Organization: name,
        Domains: domains,
        EntityId: `https://app.example/connections/${name}/saml2/acs`,
        MetadataUrl: `https://idp.${name}.example/metadata`,
      },
      problems: [],
    },
  };
}

const removal = (name: string) => ({ kind: 'removed' as const, name, origin: `${name}.json` });

/** What became of the declaration: `added`, `changed`, `removed`, or the keys it was refused for. */
function outcome(events: ConnectionEvent[]): string | string[] {
  const [event] = events;
  if (!event) return 'unchanged';
  return event.kind === 'refused' ? event.problems.map((problem) => problem.key) : event.kind;
}

describe('connections: a wildcard domain against the domains below it', () => {
  let registry: ConnectionRegistry;
  beforeEach(() => {
    registry = new ConnectionRegistry({ ...CONNECTION_RULES, environment: 'development' }, new Set());
  });

  it('is refused while another organization holds a domain below it, at any depth, and accepted once it let go', () => {
    expect(outcome(registry.apply([samlConnection('initech', ['a.b.acme.test', 'eu.acme.test'])]))).to.equal('added');
    expect(outcome(registry.apply([samlConnection('acme', ['*.acme.test'])]))).to.deep.equal(['acme.json:Domains:0']);
    // One of its two domains below let go: the other still overlaps.
    expect(outcome(registry.apply([samlConnection('initech', ['a.b.acme.test', 'initech.test'])]))).to.equal('changed');
    expect(outcome(registry.apply([samlConnection('acme', ['*.acme.test'])]))).to.deep.equal(['acme.json:Domains:0']);
    // Once initech lets go, acme's refused declaration is tried again, and now joins.
    const events = registry.apply([removal('initech')]);
    expect(events.map((event) => [event.kind, 'connection' in event ? event.connection.name : ''])).to.deep.equal([
      ['removed', 'initech'],
      ['added', 'acme'],
    ]);
    expect(registry.byDomain('x.y.acme.test')?.name).to.equal('acme');
  });

  it('is refused for a connection changing to it, though its earlier version held a domain below it first', () => {
    expect(outcome(registry.apply([samlConnection('acme', ['eu.acme.test'])]))).to.equal('added');
    expect(outcome(registry.apply([samlConnection('initech', ['x.acme.test'])]))).to.equal('added');
    expect(outcome(registry.apply([samlConnection('acme', ['eu.acme.test', '*.acme.test'])]))).to.deep.equal([
      'acme.json:Domains:1',
    ]);
    expect(registry.byDomain('x.acme.test')?.name).to.equal('initech');
  });

  it('is accepted for a connection changing to it when only its own earlier version held a domain below it', () => {
    expect(outcome(registry.apply([samlConnection('acme', ['eu.acme.test'])]))).to.equal('added');
    expect(outcome(registry.apply([samlConnection('acme', ['*.acme.test'])]))).to.equal('changed');
    expect(registry.byDomain('eu.acme.test')?.name).to.equal('acme');
    // Its earlier domain let go with the change: another organization may take it now... but not under the wildcard.
    expect(outcome(registry.apply([samlConnection('initech', ['eu.acme.test'])]))).to.deep.equal([
      'initech.json:Domains:0',
    ]);
  });

  it('leaves a domain beside it, or the domain itself, to another organization', () => {
    expect(outcome(registry.apply([samlConnection('initech', ['acme.test', 'notacme.test'])]))).to.equal('added');
    expect(outcome(registry.apply([samlConnection('acme', ['*.acme.test'])]))).to.equal('added');
    expect(registry.byDomain('acme.test')?.name).to.equal('initech');
    expect(registry.byDomain('eu.acme.test')?.name).to.equal('acme');
  });
});
